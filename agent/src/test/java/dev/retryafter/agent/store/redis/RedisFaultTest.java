package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.config.RedisAddress;
import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.engine.knowledge.HostKnowledge;
import dev.retryafter.agent.engine.knowledge.InMemoryKnowledgeStore;
import dev.retryafter.agent.engine.learn.PaceSchedule;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis killed, paused, restarted empty, flapping, or refusing the password: every operation answers
 * within a bound it cannot exceed if the timeout works (a second, against a 50 ms timeout), none
 * throws, one line says it went and one that it came back (however often it flapped meanwhile),
 * and once it is back the fleet shares again.
 */
class RedisFaultTest {

    /** Far above the 50 ms timeout plus a connect on a loaded machine; a hang or a 2 s default would pass it. */
    private static final long BOUND_MILLIS = 1000;
    private static final String HOST = "portal.example:443";

    private final List<AutoCloseable> opened = new ArrayList<>();
    private final RecordingEvents events = new RecordingEvents();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
    }

    private RedisServer server() throws Exception {
        RedisServer server = RedisServer.start();
        opened.add(server);
        return server;
    }

    /** An outage is over once Redis has answered this long: long beside a flap of the tests, short beside their patience. */
    private static final long STEADY_MILLIS = 3000;

    private RedisKnowledgeStore store(RedisAddress address) {
        RedisKnowledgeStore store = RedisFixture.store(address, "faults", Clock.system(),
                new RedisKnowledgeStore.Options().refreshMillis(50).steadyMillis(STEADY_MILLIS), events);
        opened.add(0, store);
        return store;
    }

    /** Knowledge with every part: a merge of it writes every field. */
    private static final HostKnowledge EVERYTHING;

    static {
        long now = System.currentTimeMillis();
        InMemoryKnowledgeStore scratch = new InMemoryKnowledgeStore();
        scratch.recordRefusal(HOST, now - 100, now - 101, OptionalLong.of(1000), true);
        scratch.recordRecovery(HOST, now - 50);
        scratch.recordRefusal(HOST, now, now - 1, OptionalLong.empty(), false);
        scratch.holdUntil(HOST, now + TimeUnit.DAYS.toMillis(1), "reason");
        scratch.reserveSlot(HOST, now, 100, 0);
        scratch.learn(HOST, now, Optional.of(new PaceSchedule(5.0, now, 4000)), OptionalInt.of(10));
        scratch.forgetCostsBefore(HOST, now - 100);
        scratch.distrustHints(HOST, "they lie");
        EVERYTHING = scratch.read(HOST);
    }

    private static OptionalLong reserve(RedisKnowledgeStore store) {
        return store.reserve(HOST, System.currentTimeMillis(), 100, 1000, 2000);
    }

    /** Runs every operation once and returns the longest any took; none may throw. */
    private static long everyOperation(RedisKnowledgeStore store) {
        long longest = 0;
        List<Runnable> operations = List.of(
                () -> reserve(store),
                () -> store.mergeIntoFleet(HOST, EVERYTHING),
                () -> store.refusal(HOST, System.currentTimeMillis(), 2000, System.currentTimeMillis(), OptionalLong.of(1000), true),
                () -> store.recovery(HOST, System.currentTimeMillis(), System.currentTimeMillis()),
                () -> store.readFleet(HOST),
                () -> store.admitted(HOST, 2000),
                () -> store.seen(HOST));
        for (Runnable operation : operations) {
            long start = System.nanoTime();
            operation.run();
            longest = Math.max(longest, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }
        return longest;
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "within 30 s: " + what);
            Thread.sleep(20);
        }
    }

    @Test
    void killedRedisAnswersUnavailableAtOnceAndOneLineSaysSoThenRestartedEmptyItSharesAgain() throws Exception {
        RedisServer server = server();
        RedisKnowledgeStore store = store(server.address());
        AtomicInteger merges = new AtomicInteger();
        store.link.onRestored(merges::incrementAndGet);
        assertEquals(0, reserve(store).getAsLong());
        store.mergeIntoFleet(HOST, EVERYTHING);

        server.kill();
        long first = everyOperation(store);
        assertTrue(first < BOUND_MILLIS, "the first operations on a dead Redis took " + first + " ms");
        assertFalse(store.link.isAvailable());
        assertEquals(OptionalLong.empty(), reserve(store), "unavailable, not a guess");
        assertEquals(null, store.readFleet(HOST));
        for (int i = 0; i < 20; i++) {
            assertTrue(everyOperation(store) < BOUND_MILLIS);
        }
        long start = System.nanoTime();
        for (int i = 0; i < 1000; i++) {
            reserve(store);
        }
        long thousand = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(thousand < BOUND_MILLIS, "while the circuit is open no call pays the timeout: 1000 took " + thousand + " ms");
        assertEquals(1, events.unavailable.size(), "one line when it went: " + events.unavailable);
        assertTrue(events.unavailable.get(0).contains(server.address().toString()), events.unavailable.get(0));
        assertEquals(List.of(), events.restored);

        Thread.sleep(300); // a few probes fail meanwhile: still one line
        server.startAgain();
        await(store.link::isAvailable, "the store reconnects in the background");
        assertEquals(1, merges.get(), "the merge-back listener ran once, before the store was available again");
        await(() -> !events.restored.isEmpty(), "a line once it has answered steadily");
        assertEquals(1, events.unavailable.size(), events.unavailable.toString());
        assertEquals(1, events.restored.size(), "one line when it came back: " + events.restored);
        assertTrue(events.restored.get(0).contains("one interruption"), events.restored.get(0));

        // Restarted empty: the not-before is gone, the scripts are loaded again, the schedule is shared again.
        assertEquals(0, reserve(store).getAsLong());
        long second = reserve(store).getAsLong();
        assertTrue(second > 0 && second <= 100, "booked behind the first again: " + second);
        await(() -> !store.seen(HOST).isHeldAt(System.currentTimeMillis()), "the view of the fleet refreshes again: empty");
        store.mergeIntoFleet(HOST, EVERYTHING);
        await(() -> store.seen(HOST).isHeldAt(System.currentTimeMillis()), "and then sees what was merged since");
    }

    @Test
    void aPausedRedisCostsOneTimeoutThenNothing() throws Exception {
        RedisServer server = server();
        RedisKnowledgeStore store = store(server.address());
        assertTrue(store.mergeIntoFleet(HOST, EVERYTHING));
        server.pause();
        try {
            long start = System.nanoTime();
            OptionalLong reply = reserve(store);
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(OptionalLong.empty(), reply);
            assertTrue(took < BOUND_MILLIS, "a Redis that does not answer cost " + took + " ms");
            for (int i = 0; i < 20; i++) {
                assertTrue(everyOperation(store) < BOUND_MILLIS);
            }
            start = System.nanoTime();
            for (int i = 0; i < 100; i++) {
                reserve(store);
            }
            long hundred = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(hundred < BOUND_MILLIS, "the circuit is open: 100 calls cost " + hundred + " ms, not 100 timeouts");
            assertEquals(1, events.unavailable.size(), events.unavailable.toString());
        } finally {
            server.resume();
        }
        await(store.link::isAvailable, "back once it answers");
        assertTrue(store.readFleet(HOST) != null);
        await(() -> !events.restored.isEmpty(), "a line once it has answered steadily");
        assertEquals(1, events.restored.size());
    }

    @Test
    void aSingleSlowAnswerIsNotAnOutage() throws Exception {
        RedisServer server = server();
        RedisKnowledgeStore store = store(server.address());
        assertTrue(reserve(store).isPresent());
        server.pause();
        try {
            assertEquals(OptionalLong.empty(), reserve(store), "this call timed out");
        } finally {
            server.resume();
        }
        assertTrue(store.link.isAvailable(), "one timeout does not open the circuit");
        assertTrue(reserve(store).isPresent(), "the next call reaches Redis");
        assertEquals(List.of(), events.all(), "and nothing is said of it");
    }

    @Test
    void aFlappingRedisIsOneOutageOfTwoLinesWithItsLengthAndFailedCalls() throws Exception {
        RedisServer server = server();
        RedisKnowledgeStore store = store(server.address());
        assertTrue(reserve(store).isPresent());
        int flaps = 5;
        for (int i = 0; i < flaps; i++) {
            server.pause();
            try {
                await(() -> {
                    reserve(store);
                    return !store.link.isAvailable();
                }, "the circuit opens while Redis does not answer");
            } finally {
                server.resume();
            }
            await(store.link::isAvailable, "back once it answers");
        }
        assertEquals(1, events.unavailable.size(), "one line when the outage began: " + events.unavailable);
        await(() -> !events.restored.isEmpty(), "a line once it has answered steadily");
        assertEquals(1, events.restored.size(), events.restored.toString());
        String back = events.restored.get(0);
        assertTrue(back.contains(flaps + " interruptions"), back);
        java.util.regex.Matcher failed = java.util.regex.Pattern.compile("(\\d+) failed calls").matcher(back);
        assertTrue(failed.find() && Integer.parseInt(failed.group(1)) >= flaps * RedisLink.FAILURES_TO_OPEN, back);
        assertTrue(back.matches(".*back after \\d+\\.\\d s unavailable.*"), back);
    }

    @Test
    void aRedisThatWasNeverThereIsOneLineAndNoException() throws Exception {
        int port;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        RedisKnowledgeStore store = store(RedisAddress.parse("redis://127.0.0.1:" + port));
        for (int i = 0; i < 20; i++) {
            assertTrue(everyOperation(store) < BOUND_MILLIS);
        }
        assertEquals(1, events.unavailable.size(), events.unavailable.toString());
    }

    @Test
    void aWrongPasswordIsUnavailableAndNeverPrinted() throws Exception {
        String password = "s3cret-" + System.nanoTime();
        RedisServer server = RedisServer.start(password);
        opened.add(server);
        RedisAddress right = RedisAddress.parse("redis://:" + password + "@127.0.0.1:" + server.port());
        RedisKnowledgeStore good = store(right);
        assertTrue(reserve(good).isPresent(), "the password from the address is used");

        String wrong = "wrong-" + password;
        RedisKnowledgeStore bad = store(right.withPassword(wrong));
        for (int i = 0; i < 5; i++) {
            assertTrue(everyOperation(bad) < BOUND_MILLIS);
        }
        assertFalse(bad.link.isAvailable());
        assertEquals(1, events.unavailable.size(), events.unavailable.toString());
        for (String line : events.all()) {
            assertFalse(line.contains(password), "the password is never printed: " + line);
        }
        assertFalse(right.toString().contains(password), right.toString());
    }
}
