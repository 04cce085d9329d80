package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.demo.portal.PortalStats;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Inconclusive;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.MinSleepFloor;
import dev.retryafter.it.harness.ScraperRun;
import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Vert.x WebClient 5 (on Netty), unchanged and built with its defaults, in child JVMs with the agent attached (it needs
 * Java 11): the legacy scraper on {@code getAbs(url).send()}, against portals whose Retry-After lies; a body sent once and one sent again; the last refusal handed to the
 * application with its body; and switched off, the same requests as without the agent.
 */
@Execution(ExecutionMode.CONCURRENT)
class VertxWebClientTest {

    static final String FETCHER = "dev.retryafter.it.apps.java8.VertxWebClientFetcher";
    static final String APP = "dev.retryafter.it.apps.java8.VertxWebClientApp";
    static final long MIN_SLEEP = 1_000;
    static final String POLICY = "default.min-sleep = 1s\n"
            + "default.max-sleep = 4s\n"
            + "default.max-attempts = 10\n";
    static final int RECORDS = 40;

    static Stream<Arguments> lyingPortals() {
        return Stream.of(Arguments.of(Jdk.JAVA_11, Behaviour.ALWAYS_ZERO, FETCHER),
                Arguments.of(Jdk.JAVA_17, Behaviour.CONSTANT_OVERSTATED, FETCHER),
                Arguments.of(Jdk.JAVA_21, Behaviour.CONSTANT_OVERSTATED, FETCHER),
                Arguments.of(Jdk.JAVA_25, Behaviour.ALWAYS_ZERO, FETCHER));
    }

    /** The scraper, Vert.x 5 and Netty, and the test applications. */
    static ChildJvm onClasspath(ChildJvm jvm) {
        return jvm.classpath(TestClasspath.SCRAPER.or(name -> name.startsWith("vertx-") || name.startsWith("netty-")
                        || name.startsWith("jackson-core")))
                .classpathEntry(TestClasspath.testClasses());
    }

    /** 10 requests per 2 s, Retry-After 0 (a hot loop, obeyed) or 3600; three workers. */
    @ParameterizedTest(name = "{1} on {0}, {2}")
    @MethodSource("lyingPortals")
    void everyRecordArrivesAndNoWorkerIsSentSoonerThanMinSleepAfterARefusal(Jdk jdk, Behaviour behaviour, String fetcher) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(behaviour, 10, 2_000))) {
            ScraperRun run = ScraperRun.runAsGiven(onClasspath(new ChildJvm(jdk)), POLICY, fetcher, portal.baseUrl(), RECORDS,
                    "--threads", "3");
            PortalStats stats = portal.stats();
            System.out.println("Vert.x WebClient, " + behaviour + " on " + jdk
                    + ": " + run.fetched + " of " + RECORDS + " fetched, " + stats.requests + " requests, " + stats.refusals
                    + " refusals, shortest gap after a worker's own refusal " + stats.shortestGapAfterOwnRefusalMillis + " ms");

            assertEquals(RECORDS, run.fetched, () -> "every record arrives\n" + stats + "\n" + run);
            Inconclusive.unlessRefused(stats.refusals, () -> stats + "\n" + run); // so this test could fail
            MinSleepFloor.assertKept(stats.shortestGapAfterOwnRefusalMillis, MIN_SLEEP, () -> stats + "\n" + run);
            assertTrue(run.jvm.stderr.contains("Retry-After=\"" + (behaviour == Behaviour.ALWAYS_ZERO ? "0" : "3600") + "\""),
                    () -> "each refusal is explained in the log\n" + run);
            assertFalse(run.jvm.stderr.contains("ungoverned"), () -> "Vert.x WebClient is governed: no warning\n" + run);
            assertFalse(run.jvm.stderr.contains("internal failure"), run::toString);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_11", "JAVA_25"})
    void aStreamedBodyIsNeverSentTwiceAndAStringIsSentAgainWhole(Jdk jdk) throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("0"))) {
            ChildJvm.Result run = app(jdk, POLICY, "post-once", server.url("/upload"));
            assertEquals(0, run.exitCode, run::toString);
            assertTrue(run.stdout.contains("STATUS 429 "), () -> "the refusal went back to the application\n" + run);
            assertEquals(List.of("once"), server.bodies, () -> "sent once, by the agent and the client alike\n" + run);
        }
        try (ScriptedServer server = new ScriptedServer(n -> n == 0 ? Reply.refused("0") : Reply.ok())) {
            ChildJvm.Result run = app(jdk, POLICY, "post-replayable", server.url("/upload"));
            assertEquals(0, run.exitCode, run::toString);
            assertTrue(run.stdout.contains("STATUS 200 "), run::toString);
            assertEquals(List.of("every time", "every time"), server.bodies, run::toString);
            assertFalse(run.stderr.contains("internal failure"), run::toString);
        }
    }

    /** The last refusal (max-attempts 3 here) reaches the application with its whole body. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_17"})
    void theLastRefusalReachesTheApplicationWithItsBody(Jdk jdk) throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> new Reply(503, "0", 32))) {
            ChildJvm.Result run = app(jdk, "default.min-sleep = 1s\ndefault.max-sleep = 4s\ndefault.max-attempts = 3\n", "get", server.url("/records/1"));
            assertEquals(0, run.exitCode, run::toString);
            assertTrue(run.stdout.contains("STATUS 503 32"), () -> "the last refusal, its body whole\n" + run);
            assertEquals(3, server.requests(), run::toString);
            assertFalse(run.stderr.contains("internal failure"), run::toString);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_11", "JAVA_17"})
    void switchedOffTheSameRequestsAsWithoutTheAgent(Jdk jdk) throws Exception {
        ScraperRun without;
        long requestsWithout;
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 60_000))) {
            without = ScraperRun.runAsGiven(onClasspath(new ChildJvm(jdk)), null, FETCHER, portal.baseUrl(), 12);
            requestsWithout = portal.stats().requests;
            assertTrue(without.refused > 0, () -> "refusals reach the application\n" + without);
        }
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 60_000))) {
            ScraperRun off = ScraperRun.runAsGiven(onClasspath(new ChildJvm(jdk)), POLICY + "enabled = false\n", FETCHER,
                    portal.baseUrl(), 12);
            assertEquals(requestsWithout, portal.stats().requests, () -> "the same requests as with no agent at all\n" + off);
            assertEquals(without.fetched, off.fetched);
            assertEquals(without.refused, off.refused);
            assertTrue(off.jvm.stderr.contains("off (enabled=false"), () -> "says it is off\n" + off);
        }
    }

    private static ChildJvm.Result app(Jdk jdk, String policy, String... args) throws Exception {
        Path file = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
        Files.writeString(file, policy);
        return onClasspath(new ChildJvm(jdk)).withAgent("config=" + file).main(APP, args).run();
    }
}
