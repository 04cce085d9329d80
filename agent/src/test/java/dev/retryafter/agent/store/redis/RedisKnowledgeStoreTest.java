package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.engine.knowledge.HostKnowledge;
import dev.retryafter.agent.engine.knowledge.InMemoryKnowledgeStore;
import dev.retryafter.agent.engine.knowledge.OpenStreak;
import dev.retryafter.agent.engine.learn.PaceSchedule;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two stores on one Redis stand for two JVMs of a fleet, on the real clock, as in production: each
 * reads its own copy, which the fleet's answers and the refreshed moments keep in step.
 */
class RedisKnowledgeStoreTest {

    private static final String HOST = "portal.example:443";
    private static final String OWN = "own.example:443";
    private static final long WINDOW = 2000;
    private static final AtomicInteger FLEETS = new AtomicInteger();

    @RegisterExtension
    static final RedisFixture REDIS = new RedisFixture();

    private final List<AutoCloseable> opened = new ArrayList<>();
    private final String fleet = "adapter" + FLEETS.incrementAndGet();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
    }

    /** Every host but {@link #OWN} is the fleet's. */
    private static final RedisKnowledgeStore.HostRules RULES = new RedisKnowledgeStore.HostRules() {
        @Override
        public boolean isShared(String host) {
            return !host.equals(OWN);
        }

        @Override
        public long windowMillis(String host) {
            return WINDOW;
        }
    };

    private RedisKnowledgeStore jvm(RedisServer redis, long refreshMillis) {
        return jvm(fleet(redis, new RedisKnowledgeStore.Options().timeoutMillis(2000).refreshMillis(refreshMillis)));
    }

    private RedisKnowledgeStore fleet(RedisServer redis, RedisKnowledgeStore.Options options) {
        return new RedisKnowledgeStore(redis.address(), fleet, new InMemoryKnowledgeStore(), Clock.system(), RULES, options,
                new RecordingEvents());
    }

    private RedisKnowledgeStore jvm(RedisKnowledgeStore store) {
        opened.add(0, store);
        return store;
    }

    private static long now() {
        return System.currentTimeMillis();
    }

    @Test
    void twoJvmsBookOneScheduleAndAHostKeptLocalIsNot() {
        RedisKnowledgeStore a = jvm(REDIS.server(), 200);
        RedisKnowledgeStore b = jvm(REDIS.server(), 200);
        long start = System.nanoTime();
        for (int i = 0; i < 8; i++) {
            long wait = (i % 2 == 0 ? a : b).reserveSlot(HOST, now(), 100, 60_000);
            long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + 1;
            assertTrue(wait <= 100L * i && wait >= 100L * i - elapsed, "booking " + i + " waits " + wait);
        }
        assertEquals(0, a.reserveSlot(OWN, now(), 100, 60_000));
        assertEquals(0, b.reserveSlot(OWN, now(), 100, 60_000), "share = local: each JVM its own schedule");
    }

    @Test
    void theCeilingAtTheFleetStreaksFirstRefusalIsTheFleetsAndTheOtherJvmPacesByWhatItTaught() throws Exception {
        RedisKnowledgeStore a = jvm(REDIS.server(), 50);
        RedisKnowledgeStore b = jvm(REDIS.server(), 50);
        for (int i = 0; i < 6; i++) {
            a.recordAdmitted(HOST, now());
        }
        for (int i = 0; i < 4; i++) {
            b.recordAdmitted(HOST, now());
        }
        Thread.sleep(300); // b's successes travel with its next refresh
        long t = now();
        OpenStreak first = a.recordRefusal(HOST, t, t - 5, OptionalLong.of(0), false);
        assertTrue(first.isFirstRefusal());
        assertEquals(10, a.ceilingBefore(HOST, t, 2_000), "the fleet's six and four, not a's six");
        // What the engine learns from that ceiling: 10 per 2 s refused, curve from now.
        a.learn(HOST, t, Optional.of(new PaceSchedule(5.0, t, 20_000)), OptionalInt.of(10));
        HostKnowledge knownA = a.read(HOST);
        assertEquals(OptionalInt.of(10), knownA.learnedCeiling());
        assertEquals(5.0, knownA.pace().get().refusedRatePerSecond(), 1e-9);

        long u = now();
        OpenStreak echo = b.recordRefusal(HOST, u, u - 5, OptionalLong.empty(), false);
        assertFalse(echo.isFirstRefusal(), "b's refusal counts into a's streak");
        assertEquals(2, echo.refusals());
        assertEquals(OptionalLong.of(0), echo.headerMillis());
        b.learn(HOST, u, Optional.of(new PaceSchedule(2.0, u, 20_000)), OptionalInt.of(4)); // an echo teaches nothing
        Thread.sleep(300);
        HostKnowledge knownB = b.read(HOST);
        assertTrue(knownB.pace().isPresent(), "b paces by the fleet's pace");
        assertEquals(5.0, knownB.pace().get().refusedRatePerSecond(), 1e-9, "not by its own share of it");
        assertEquals(OptionalInt.of(10), knownB.learnedCeiling());
        assertEquals(2, knownB.openStreak().get().refusals(), "b's copy has the fleet's streak");

        long v = now();
        assertTrue(b.recordRecovery(HOST, v).isPresent(), "b's success sent after the streak began ends it for the fleet");
        Thread.sleep(300);
        a.recordRecovery(HOST, now());
        assertFalse(a.read(HOST).openStreak().isPresent(), "and a's copy ends with it");
    }

    @Test
    void aWaitOrAHoldImposedByOneJvmReachesTheOtherWithinARefresh() throws Exception {
        RedisKnowledgeStore a = jvm(REDIS.server(), 50);
        RedisKnowledgeStore b = jvm(REDIS.server(), 50);
        b.read(HOST); // b asks about the host: its moments are refreshed from now on
        a.imposeNotBefore(HOST, now() + 5000);
        a.holdUntil("held.example:80", now() + 60_000, "an hour away, twice");
        b.read("held.example:80");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((!b.read(HOST).notBefore().isPresent() || !b.read("held.example:80").isHeldAt(now())) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        long remaining = b.read(HOST).notBefore().getAsLong() - now();
        assertTrue(remaining > 3000 && remaining <= 5100, "a's wait, in b's copy: " + remaining);
        assertTrue(b.read("held.example:80").isHeldAt(now()), "a's hold, in b's copy");
        long wait = b.reserveSlot(HOST, now(), 0, 60_000);
        assertTrue(wait > 3000, "and b waits for it: " + wait);
    }

    @Test
    void redisGoneEachJvmCarriesOnAloneAndWhatItLearnedMeanwhileIsMergedBack() throws Exception {
        RedisServer own = RedisServer.start();
        opened.add(own);
        RedisKnowledgeStore a = jvm(own, 50);
        assertEquals(0, a.reserveSlot(HOST, now(), 100, 60_000));
        own.kill();
        long start = System.nanoTime();
        a.imposeNotBefore(HOST, now() + 30_000);
        long wait = a.reserveSlot(HOST, now(), 100, 60_000);
        assertTrue(wait > 25_000, "this JVM's own knowledge stands in: " + wait);
        a.recordRefusal(HOST, now(), now(), OptionalLong.of(1000), false);
        a.recordRecovery(HOST, now() + 1);
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 2000, "no operation waited on the dead Redis");

        own.startAgain(); // empty
        RedisKnowledgeStore b = jvm(own, 50);
        b.read(HOST);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!b.read(HOST).notBefore().isPresent() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        long remaining = b.read(HOST).notBefore().getAsLong() - now();
        assertTrue(remaining > 10_000, "a's wait, learned while Redis was gone, reached the fleet: " + remaining);
    }

    @Test
    void aQuietHostCostsNoRoundTripAndAnotherJvmsWaitReachesThisJvmWithTheRefresh() throws Exception {
        // The request path alone: no refresh but the test's own, and no background trip for the successes' count.
        RedisKnowledgeStore quiet = fleet(REDIS.server(), new RedisKnowledgeStore.Options().timeoutMillis(2000).refreshMillis(3_600_000).countsOnlyWithTheRefresh());
        RedisKnowledgeStore a = jvm(quiet);
        RedisKnowledgeStore b = jvm(REDIS.server(), 3_600_000);
        a.read(HOST); // asked about: refreshed from now on
        quiet.refresh();
        try (Jedis jedis = new Jedis("127.0.0.1", REDIS.server().port())) {
            long before = commandsProcessed(jedis);
            for (int i = 0; i < 1000; i++) {
                long now = now();
                assertEquals(0, a.reserveSlot(HOST, now, 0, 60_000));
                a.recordAdmitted(HOST, now);
                assertFalse(a.recordRecovery(HOST, now).isPresent());
                a.read(HOST);
            }
            long after = commandsProcessed(jedis);
            assertEquals(1, after - before, "only the INFO of this test itself reached Redis");
        }
        b.imposeNotBefore(HOST, now() + 5000);
        assertFalse(a.read(HOST).notBefore().isPresent(), "not yet refreshed");
        quiet.refresh();
        long remaining = a.read(HOST).notBefore().getAsLong() - now();
        assertTrue(remaining > 3000 && remaining <= 5100, "b's not-before, in a's copy: " + remaining);
        assertTrue(a.reserveSlot(HOST, now(), 0, 60_000) > 3000, "and a waits for it");
    }

    private static long commandsProcessed(Jedis jedis) {
        for (String line : jedis.info("stats").split("\r\n")) {
            if (line.startsWith("total_commands_processed:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        throw new AssertionError("no total_commands_processed in INFO");
    }
}
