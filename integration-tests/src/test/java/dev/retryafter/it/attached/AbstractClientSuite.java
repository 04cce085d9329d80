package dev.retryafter.it.attached;

import dev.retryafter.it.harness.MinSleepFloor;
import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.List;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every governed client must do, in this very JVM, which runs with the built agent attached
 * (attached-policies.properties: min-sleep 100 ms, max-sleep 1 s, max-attempts 3). A client is a
 * thin subclass that says how it sends a GET and two POSTs; its own peculiarities are tests of its own.
 */
abstract class AbstractClientSuite {

    static final long MIN_SLEEP_MILLIS = 100;
    static final int MAX_ATTEMPTS = 3;

    @BeforeAll
    static void theAgentIsAttached() {
        Hooks.requireAgent();
    }

    /** GETs {@code url}, reads and closes the body (the error body too), and returns the status. */
    abstract int get(String url) throws Exception;

    /** POSTs {@code body} in a form the client cannot send twice (a stream), and returns the status. */
    abstract int postOnce(String url, String body) throws Exception;

    /** POSTs {@code body} in a form the client can send again (bytes it holds), and returns the status. */
    abstract int postReplayable(String url, String body) throws Exception;

    @Test
    void refusalsAreRetriedAndTheRecordArrives() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n < 2 ? Reply.refused("0") : Reply.ok())) {
            assertEquals(200, get(server.url("/records/1?apikey=s3cr3t")));
            assertEquals(3, server.requests());
        }
    }

    /**
     * GETs {@code url} with the client's own timeout for a whole exchange at {@code timeoutMillis}, reads and closes the
     * body, and returns the status. A client with no such timeout, or whose timeout counts across the agent's waits
     * (OkHttp's call timeout, a cancel), does not override it, and the test below is skipped for it.
     */
    int getWithin(String url, long timeoutMillis) throws Exception {
        Assumptions.abort("no timeout for one exchange");
        return 0;
    }

    /**
     * A client's own timeout runs for each attempt, not across the agent's waits: a refusal that asks for a wait (1 s)
     * longer than the timeout (400 ms) is waited out and the record arrives, rather than failing as timed out.
     */
    @Test
    void aClientsOwnTimeoutRunsForEachAttempt() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n < 1 ? Reply.refused("1") : Reply.ok())) {
            assertEquals(200, getWithin(server.url("/records/1"), 400));
            assertEquals(2, server.requests());
            long waitedMillis = (server.arrivals.get(1) - server.arrivals.get(0)) / 1_000_000;
            assertTrue(waitedMillis > 400, () -> "the agent's wait, " + waitedMillis + " ms, did not outlast the 400 ms timeout: the test shows nothing");
        }
    }

    @Test
    void noRequestSoonerThanMinSleepAfterARefusal() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n < 2 ? Reply.refused("0") : Reply.ok())) {
            assertEquals(200, get(server.url("/records/1")));
            assertEquals(3, server.arrivals.size());
            MinSleepFloor.assertKeptBetween(server.arrivals, MIN_SLEEP_MILLIS, getClass().getSimpleName());
        }
    }

    /**
     * The last refusal goes back to the application, or, where the attempts took longer than max-sleep (1 s here; a slow
     * machine), the streak counts as a quota and the host is held: the request fails fast. Never an hour asleep.
     */
    @Test
    void retryAfter3600NeverSleepsAnHour() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("3600"))) {
            long start = System.nanoTime();
            try {
                assertEquals(429, get(server.url("/records/1")), "the last refusal goes back to the application");
            } catch (Exception e) {
                assertTrue(isHostHeld(e), () -> "a refusal or a hold, nothing else: " + e);
            }
            assertTrue(System.nanoTime() - start < 10_000_000_000L, "no hour asleep on Retry-After: 3600");
            assertTrue(server.requests() <= MAX_ATTEMPTS, () -> server.requests() + " requests");
        }
    }

    /**
     * Runs {@code lastRefusal}, a request every attempt of which is refused: it must give the application the last
     * refusal as the client has it. On a slow machine the attempts can outlast max-sleep (1 s here) with nothing let
     * through, and the agent then rightly holds the host: the request fails fast with the hold, after fewer attempts.
     */
    static void lastRefusalOrAHold(ScriptedServer server, org.junit.jupiter.api.function.Executable lastRefusal) throws Throwable {
        try {
            lastRefusal.execute();
            assertEquals(MAX_ATTEMPTS, server.requests(), "max-attempts is 3, with nothing stacked beneath");
        } catch (Throwable e) {
            if (!isHostHeld(e)) {
                throw e;
            }
            assertTrue(server.requests() < MAX_ATTEMPTS, () -> "held before its last attempt: " + server.requests() + " requests");
        }
    }

    /** Whether {@code e}, or what it wraps, is the agent's hold (its class is the agent's loader's, not this test's). */
    static boolean isHostHeld(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getClass().getName().endsWith(".HostHeldException")) {
                return true;
            }
        }
        return false;
    }

    /** A 503 with Retry-After: 0 too: a client's own one retry of it (OkHttp's) must not run beneath the agent's. */
    @Test
    void afterMaxAttemptsTheLastRefusalComesBackUnchanged() throws Throwable {
        try (ScriptedServer server = new ScriptedServer(n -> new Reply(503, "0", 32))) {
            lastRefusalOrAHold(server, () -> assertEquals(503, get(server.url("/records/1"))));
        }
    }

    @Test
    void aBodyThatCannotBeSentTwiceIsNeverSentTwice() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("0"))) {
            assertEquals(429, postOnce(server.url("/upload"), "once"), "the refusal goes back to the application");
            assertEquals(List.of("once"), server.bodies, "neither the agent nor the client sent it again");
        }
    }

    @Test
    void aReplayableBodyIsSentAgainWhole() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n == 0 ? Reply.refused("0") : Reply.ok())) {
            assertEquals(200, postReplayable(server.url("/upload"), "every time"));
            assertEquals(List.of("every time", "every time"), server.bodies);
        }
    }

    /**
     * What the portal let through reaches the engine as well as what it refused: after a refusal and the admissions that
     * end its streak, the host has a category or a pace (a client that told only its refusals would leave both unknown).
     */
    @Test
    void theAdmissionsAfterARefusalTeachTheEngine() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n < 1 ? Reply.refused("0") : Reply.ok())) {
            for (int i = 0; i < 4; i++) {
                assertEquals(200, get(server.url("/records/" + i)));
            }
            Object category = hostAttribute(server, "Category");
            double pace = (Double) hostAttribute(server, "PacePerMinute");
            assertTrue(!"unknown".equals(category) || pace > 0, () -> "category " + category + ", pace " + pace + "/min");
        }
    }

    /** An attribute of the agent's JMX bean of {@code server}'s host, once the agent has published it. */
    static Object hostAttribute(ScriptedServer server, String attribute) throws Exception {
        MBeanServer beans = ManagementFactory.getPlatformMBeanServer();
        ObjectName host = new ObjectName("dev.retryafter:type=Host,name="
                + ObjectName.quote("127.0.0.1:" + URI.create(server.url("/")).getPort()));
        for (int waited = 0; !beans.isRegistered(host) && waited < 600; waited++) {
            Thread.sleep(100); // host beans are added on the agent's next sync (every second)
        }
        return beans.getAttribute(host, attribute);
    }

    /** More than the cap (8) one after another: each exchange gives its permit back when its body is read. */
    @Test
    void aSuccessIsSentOnceAndGivesItsPermitBack() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.ok())) {
            long start = System.nanoTime();
            for (int i = 0; i < 12; i++) {
                assertEquals(200, get(server.url("/records/" + i)));
            }
            assertEquals(12, server.requests());
            assertTrue(System.nanoTime() - start < 20_000_000_000L, "no request waited for a permit an earlier one kept");
        }
    }
}
