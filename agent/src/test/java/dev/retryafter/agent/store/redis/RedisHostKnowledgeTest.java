package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.engine.Clock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each operation's semantics against a real redis-server. Waits are bounded both ways by what
 * cannot happen: a booking is never later than its place in the schedule, and never earlier than
 * that place less the time the test itself has taken since the schedule began.
 */
class RedisHostKnowledgeTest {

    private static final String HOST = "portal.example:443";
    private static final long HOUR = TimeUnit.HOURS.toMillis(1);
    private static RedisServer server;
    private static final AtomicInteger FLEETS = new AtomicInteger();

    private final List<RedisHostKnowledge> opened = new ArrayList<>();
    private String fleet;
    private RecordingEvents events;

    @BeforeAll
    static void startRedis() throws Exception {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void newFleet() {
        fleet = "test" + FLEETS.incrementAndGet(); // each test its own keys: no flush between tests
        events = new RecordingEvents();
    }

    @AfterEach
    void closeStores() {
        opened.forEach(RedisHostKnowledge::close);
        assertEquals(List.of(), events.all(), "Redis was up throughout: no down or back line");
    }

    private RedisHostKnowledge store(Clock clock) {
        return store(clock, new RedisHostKnowledge.Options().timeoutMillis(2000)); // a loaded CI machine is not a dead Redis
    }

    private RedisHostKnowledge store(Clock clock, RedisHostKnowledge.Options options) {
        RedisHostKnowledge store = new RedisHostKnowledge(server.address(), fleet, clock, options, events);
        opened.add(store);
        return store;
    }

    private static Clock offset(long millis) {
        Clock system = Clock.system();
        return () -> system.millis() + millis;
    }

    private static long wait(OptionalLong reply) {
        assertTrue(reply.isPresent(), "Redis is up: the store answers");
        return reply.getAsLong();
    }

    @Test
    void reservationsFollowOneScheduleAtTheIntervalInTheOrderAsked() {
        RedisHostKnowledge store = store(Clock.system());
        long start = System.nanoTime();
        for (int i = 0; i < 10; i++) {
            long wait = wait(store.reserve(HOST, 100, 60_000, 2000));
            long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + 1;
            assertTrue(wait <= 100L * i, "booking " + i + " waits " + wait + " ms, later than its slot at " + 100 * i);
            assertTrue(wait >= 100L * i - elapsed, "booking " + i + " waits " + wait + " ms: earlier than its slot "
                    + 100 * i + " less the " + elapsed + " ms the test took");
        }
    }

    @Test
    void noWaitIsLongerThanMaxWaitAndAnUnpacedHostIsNotBooked() {
        RedisHostKnowledge store = store(Clock.system());
        assertEquals(0, wait(store.reserve(HOST, 1000, 1500, 2000)));
        long second = wait(store.reserve(HOST, 1000, 1500, 2000));
        assertTrue(second > 500 && second <= 1000, "second booking one interval later: " + second);
        for (int i = 0; i < 3; i++) {
            long wait = wait(store.reserve(HOST, 1000, 1500, 2000));
            assertTrue(wait <= 1500 && wait > 1000, "bounded by max-wait: " + wait);
        }
        String other = "other.example:80";
        for (int i = 0; i < 5; i++) {
            assertEquals(0, wait(store.reserve(other, 0, 1500, 2000)), "no pace, no not-before: go now");
        }
    }

    @Test
    void concurrentCallersOfTwoStoresLoseNoBooking() throws Exception {
        RedisHostKnowledge a = store(Clock.system());
        RedisHostKnowledge b = store(offset(HOUR));
        int threads = 8;
        int each = 25;
        long interval = 10;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<List<Long>>> results = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            RedisHostKnowledge store = t % 2 == 0 ? a : b;
            results.add(pool.submit(() -> {
                go.await();
                List<Long> waits = new ArrayList<>();
                for (int i = 0; i < each; i++) {
                    waits.add(wait(store.reserve(HOST, interval, 60_000, 2000)));
                }
                return waits;
            }));
        }
        go.countDown();
        for (Future<List<Long>> result : results) {
            List<Long> waits = result.get(60, TimeUnit.SECONDS);
            for (int i = 1; i < waits.size(); i++) {
                assertTrue(waits.get(i) >= waits.get(i - 1) - 200, "one caller's bookings come in the order it asked: " + waits);
            }
        }
        pool.shutdown();
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + 1;
        SharedKnowledge shared = a.read(HOST).orElseThrow(AssertionError::new);
        long ahead = shared.nextSlotMillis() - shared.readAtMillis();
        long booked = threads * each * interval;
        // A lost update (two callers reading one slot) leaves the schedule short of where 200 bookings put it.
        assertTrue(ahead <= booked, "next slot " + ahead + " ms ahead: more than the " + booked + " booked");
        assertTrue(ahead >= booked - elapsed, "next slot " + ahead + " ms ahead: " + booked + " ms were booked, and only "
                + elapsed + " ms have passed");
    }

    @Test
    void clientsWhoseClocksDifferByHoursShareOneSchedule() {
        RedisHostKnowledge early = store(offset(-HOUR));
        RedisHostKnowledge late = store(offset(HOUR));
        long start = System.nanoTime();
        for (int i = 0; i < 6; i++) {
            RedisHostKnowledge store = i % 2 == 0 ? early : late;
            long wait = wait(store.reserve(HOST, 200, 60_000, 2000));
            long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + 1;
            assertTrue(wait <= 200L * i && wait >= 200L * i - elapsed, "booking " + i + " waits " + wait);
        }
        // A not-before imposed by one is the other's, in its own clock's terms.
        long imposed = wait(late.imposeNotBefore("other.example:80", 5000));
        assertTrue(imposed > 4000 && imposed <= 5000, "remaining " + imposed);
        long wait = wait(early.reserve("other.example:80", 0, 60_000, 2000));
        assertTrue(wait > 4000 && wait <= 5000, "the early clock waits the same 5 s, not 2 h more or less: " + wait);
        SharedKnowledge seen = early.read("other.example:80").orElseThrow(AssertionError::new);
        long remaining = seen.notBeforeMillis() - seen.readAtMillis();
        assertTrue(remaining > 4000 && remaining <= 5000, "read on the early clock: " + remaining);
    }

    @Test
    void aLaterNotBeforeWinsAnEarlierOneDoesNot() {
        RedisHostKnowledge store = store(Clock.system());
        long first = wait(store.imposeNotBefore(HOST, 3000));
        long shorter = wait(store.imposeNotBefore(HOST, 500));
        assertTrue(shorter > 2000 && shorter <= first, "the earlier moment does not replace the later: " + shorter);
        long longer = wait(store.imposeNotBefore(HOST, 8000));
        assertTrue(longer > 7000 && longer <= 8000, "the later moment wins: " + longer);
        long reserved = wait(store.reserve(HOST, 0, 60_000, 2000));
        assertTrue(reserved > 7000 && reserved <= 8000, "a booking waits for it: " + reserved);
        long bounded = wait(store.reserve(HOST, 0, 1000, 2000));
        assertEquals(1000, bounded, "but never more than max-wait");
    }

    @Test
    void aLaterHoldWinsWithItsReasonAndNoRequestGoesBeforeItEnds() {
        RedisHostKnowledge store = store(Clock.system());
        long first = wait(store.holdFor(HOST, 60_000, "an hour away, twice"));
        assertTrue(first > 59_000 && first <= 60_000, "held for " + first);
        wait(store.holdFor(HOST, 10_000, "a shorter one"));
        SharedKnowledge held = store.read(HOST).orElseThrow(AssertionError::new);
        assertTrue(held.isHeld());
        assertEquals("an hour away, twice", held.holdReason(), "the earlier end does not replace the later, nor its reason");
        assertEquals(1, held.holds(), "a hold confirmed while held is the same hold");
        assertTrue(held.notBeforeMillis() >= held.holdUntilMillis(), "nothing goes before the hold ends");
        long later = wait(store.holdFor(HOST, 120_000, "two minutes"));
        assertTrue(later > 119_000);
        assertEquals("two minutes", store.read(HOST).orElseThrow(AssertionError::new).holdReason());
        assertTrue(store.cached(HOST).isHeldAt(System.currentTimeMillis() + 100_000), "this JVM's cache knows at once");
    }

    @Test
    void finishedStreaksAreKeptNewestFirstAndBounded() {
        RedisHostKnowledge store = store(Clock.system(), new RedisHostKnowledge.Options().timeoutMillis(2000).streakCapacity(5));
        for (int i = 0; i < 7; i++) {
            assertTrue(store.recordStreak(HOST, StreakRecord.withHeader(1000 * i, 10 + i, 2000 + i, i % 2 == 0, 70_000 - 10_000 * i)));
        }
        assertTrue(store.recordStreak(HOST, StreakRecord.withoutHeader(5, 6, false, 0)));
        assertTrue(store.recordStreak(HOST, StreakRecord.withHeader(6000, 16, 2006, true, 10_000)), "merged back twice: once");
        List<StreakRecord> streaks = store.read(HOST).orElseThrow(AssertionError::new).streaks();
        assertEquals(5, streaks.size(), "bounded: " + streaks);
        assertEquals(StreakRecord.withoutHeader(5, 6, false, 0), streaks.get(0));
        assertEquals(StreakRecord.withHeader(6000, 16, 2006, true, 0), streaks.get(1));
        assertEquals(StreakRecord.withHeader(3000, 13, 2003, false, 0), streaks.get(4));
        long age = streaks.get(4).ageMillis();
        assertTrue(age >= 40_000 && age < 45_000, "began 40 s ago by Redis's clock: " + age);
    }

    @Test
    void whatWasLearnedLaterWinsWhoeverWritesLast() {
        RedisHostKnowledge fresh = store(offset(HOUR));
        RedisHostKnowledge stale = store(offset(-HOUR));
        assertNull(fresh.read(HOST).orElseThrow(AssertionError::new).learned(), "nothing learned yet");
        wait(fresh.recordLearned(HOST, 0, OptionalInt.of(18), 9.0, 4000, 2000));
        long kept = wait(stale.recordLearned(HOST, 30_000, OptionalInt.of(40), 20.0, 8000, 30_000)); // old news, written last
        assertTrue(kept < 30_000, "the fresher learning is kept: " + kept);
        SharedKnowledge.Learned learned = stale.read(HOST).orElseThrow(AssertionError::new).learned();
        assertNotNull(learned);
        assertEquals(OptionalInt.of(18), learned.ceiling());
        assertEquals(9.0, learned.refusedRate());
        assertEquals(4000, learned.cycleMillis());
        assertTrue(learned.epochAgoMillis() >= 2000 && learned.epochAgoMillis() < 10_000, "epoch " + learned.epochAgoMillis());
        wait(stale.recordLearned(HOST, 0, OptionalInt.of(12), 0, 0, 0));
        SharedKnowledge.Learned newer = fresh.read(HOST).orElseThrow(AssertionError::new).learned();
        assertEquals(OptionalInt.of(12), newer.ceiling(), "newer news wins");
        assertEquals(9.0, newer.refusedRate(), "no pace given: the fleet's stands");
    }

    private static RedisHostKnowledge.FleetRefusal refusal(RedisHostKnowledge store, long sentAgo, OptionalLong header) {
        return store.onRefusal(HOST, 60_000, sentAgo, header, false).orElseThrow(AssertionError::new);
    }

    /**
     * An unpaced host makes no trip of its own, and a fleet's first burst is over within a refresh:
     * another JVM's refusal still counts these successes, carried by a trip the first success asked for.
     */
    @Test
    void anotherJvmsRefusalCountsSuccessesNoOperationCarried() throws Exception {
        RedisHostKnowledge.Options noRefresh = new RedisHostKnowledge.Options().timeoutMillis(2000).refreshMillis(3_600_000);
        RedisHostKnowledge a = store(Clock.system(), noRefresh);
        RedisHostKnowledge b = store(Clock.system(), noRefresh);
        for (int i = 0; i < 6; i++) {
            a.admitted(HOST, 2_000);
        }
        Thread.sleep(20 * RedisHostKnowledge.EARLY_FLUSH_MILLIS); // generous: the trip is asked for at once
        RedisHostKnowledge.FleetRefusal refusal = b.onRefusal(HOST, 2_000, 0, OptionalLong.empty(), false)
                .orElseThrow(AssertionError::new);
        assertEquals(6, refusal.ceiling(), "a's six, though a made no trip of its own and no refresh came");
    }

    /**
     * A long window's ceiling can wait for the refresh: its successes ask for no trip of their own, so
     * a busy host of the default window costs Redis a refresh's trips alone.
     */
    @Test
    void aLongWindowsSuccessesWaitForTheRefresh() throws Exception {
        RedisHostKnowledge.Options slowRefresh = new RedisHostKnowledge.Options().timeoutMillis(2000).refreshMillis(5_000);
        long window = 500_000; // an 80th of it is later than the refresh
        RedisHostKnowledge a = store(Clock.system(), slowRefresh);
        RedisHostKnowledge b = store(Clock.system(), slowRefresh);
        for (int i = 0; i < 6; i++) {
            a.admitted(HOST, window);
        }
        Thread.sleep(20 * RedisHostKnowledge.EARLY_FLUSH_MILLIS); // a short window's trip would have gone by now
        RedisHostKnowledge.FleetRefusal refusal = b.onRefusal(HOST, window, 0, OptionalLong.empty(), false)
                .orElseThrow(AssertionError::new);
        assertEquals(0, refusal.ceiling(), "a's six wait for its refresh");
        assertEquals(RedisHostKnowledge.EARLY_FLUSH_MILLIS, RedisHostKnowledge.earlyFlushMillis(2_000), "a window of 2 s: within 25 ms");
        assertEquals(750, RedisHostKnowledge.earlyFlushMillis(60_000), "the default window: later than the default refresh");
    }

    @Test
    void theCeilingCountsEveryJvmsSuccessesSinceThePreviousRefusal() {
        RedisHostKnowledge a = store(offset(HOUR));
        RedisHostKnowledge b = store(offset(-HOUR));
        for (int i = 0; i < 6; i++) {
            a.admitted(HOST, 60_000);
        }
        for (int i = 0; i < 4; i++) {
            b.admitted(HOST, 60_000);
        }
        b.refresh(); // b's count travels with its next refresh
        RedisHostKnowledge.FleetRefusal first = refusal(a, 0, OptionalLong.of(2000));
        assertEquals(10, first.ceiling(), "a's six and b's four");
        assertTrue(first.isFirstOfStreak());
        RedisHostKnowledge.FleetRefusal echo = refusal(b, 0, OptionalLong.empty());
        assertEquals(0, echo.ceiling(), "the streak's echo: nothing admitted since");
        assertFalse(echo.isFirstOfStreak());
        assertEquals(2, echo.streakRefusals(), "b's refusal counts into a's streak");
        assertEquals(OptionalLong.of(2000), echo.streakHeaderMillis(), "with the header of the streak's first refusal");
        for (int i = 0; i < 3; i++) {
            b.admitted(HOST, 60_000);
        }
        wait(b.reserve(HOST, 0, 1000, 60_000)); // a booking carries the count too
        assertEquals(3, refusal(a, 0, OptionalLong.empty()).ceiling());
        assertEquals(3, a.read(HOST).orElseThrow(AssertionError::new).refusals());
    }

    @Test
    void aSuccessSentAfterTheFleetsStreakBeganEndsItForEveryJvm() throws Exception {
        RedisHostKnowledge a = store(offset(HOUR));
        RedisHostKnowledge b = store(offset(-HOUR));
        assertFalse(b.onAdmitted(HOST, 60_000, 0).orElseThrow(AssertionError::new).streakEnded(), "no streak: nothing to end");
        refusal(a, 10, OptionalLong.of(3000));
        Thread.sleep(30);
        refusal(b, 5, OptionalLong.empty());
        SharedKnowledge open = a.read(HOST).orElseThrow(AssertionError::new);
        assertNotNull(open.openStreak());
        assertEquals(2, open.openStreak().refusals());
        b.refresh();
        assertTrue(b.cached(HOST).isStreakOpen(), "b's cache knows a streak is open");
        RedisHostKnowledge.Recovery early = b.onAdmitted(HOST, 60_000, 60_000).orElseThrow(AssertionError::new);
        assertFalse(early.streakEnded(), "sent before the streak began: says nothing about recovery");
        Thread.sleep(50);
        RedisHostKnowledge.Recovery ended = a.onAdmitted(HOST, 60_000, 0).orElseThrow(AssertionError::new);
        assertTrue(ended.streakEnded());
        StreakRecord streak = ended.streak();
        assertTrue(streak.hadHeader());
        assertEquals(3000, streak.headerMillis(), "the first refusal's header, from a");
        assertTrue(streak.lastRefusedMillis() >= 20 && streak.lastRefusedMillis() < 10_000, "b's refusal went out after a's: " + streak);
        assertTrue(streak.recoveredByMillis() >= 80 && streak.recoveredByMillis() < 10_000, streak.toString());
        SharedKnowledge after = b.read(HOST).orElseThrow(AssertionError::new);
        assertNull(after.openStreak(), "closed for the fleet");
        assertEquals(List.of(streak), after.streaks());
        assertFalse(b.onAdmitted(HOST, 60_000, 0).orElseThrow(AssertionError::new).streakEnded(), "b's late success: already closed");
    }

    @Test
    void theScheduleAndTheCostsMomentMergeLaterWins() {
        RedisHostKnowledge store = store(Clock.system());
        long ahead = wait(store.bookNextSlotAtLeast(HOST, 4000));
        assertTrue(ahead > 3000 && ahead <= 4000);
        assertTrue(wait(store.bookNextSlotAtLeast(HOST, 1000)) > 3000, "an earlier slot does not move it back");
        long booked = wait(store.reserve(HOST, 100, 60_000, 2000));
        assertTrue(booked > 3000 && booked <= 4000, "a booking waits for the merged slot: " + booked);
        assertTrue(wait(store.forgetCostsBefore(HOST, 5000)) >= 5000);
        long since = wait(store.forgetCostsBefore(HOST, 60_000));
        assertTrue(since >= 5000 && since < 10_000, "an earlier moment does not replace the later: " + since);
        assertTrue(store.read(HOST).orElseThrow(AssertionError::new).costsSinceAgoMillis().getAsLong() >= 5000);
    }

    @Test
    void everyKeyExpires() {
        long ttl = TimeUnit.MINUTES.toMillis(10);
        RedisHostKnowledge store = store(Clock.system(), new RedisHostKnowledge.Options().timeoutMillis(2000).ttlMillis(ttl));
        store.admitted(HOST, 2000);
        wait(store.reserve(HOST, 100, 1000, 2000));
        assertTrue(store.recordStreak(HOST, StreakRecord.withHeader(0, 1, 2, false, 0)));
        wait(store.holdFor("held.example:80", TimeUnit.HOURS.toMillis(2), "long"));
        try (Jedis jedis = new Jedis("127.0.0.1", server.port())) {
            String hash = store.hashKey(HOST);
            assertEquals("retry-after:{" + fleet + "}:host:" + HOST, hash);
            for (String key : List.of(hash, hash + ":streaks", hash + ":admitted")) {
                long pttl = jedis.pttl(key);
                assertTrue(pttl > 0 && pttl <= ttl, key + " expires in " + pttl);
            }
            long held = jedis.pttl(store.hashKey("held.example:80"));
            assertTrue(held > ttl, "a hold outlives the usual expiry: " + held);
            Map<String, String> fields = jedis.hgetAll(hash);
            assertEquals("1", fields.get("v"), "versioned: " + fields);
        }
    }

    @Test
    void aQuietHostCostsNoRoundTripAndAnotherJvmsWaitReachesTheCache() throws Exception {
        // The request path alone: no refresh, and no background trip for the successes' count.
        RedisHostKnowledge.Options rare = new RedisHostKnowledge.Options().timeoutMillis(2000).refreshMillis(3_600_000)
                .countsOnlyWithTheRefresh();
        RedisHostKnowledge a = store(Clock.system(), rare);
        RedisHostKnowledge b = store(Clock.system(), rare);
        try (Jedis jedis = new Jedis("127.0.0.1", server.port())) {
            long before = commandsProcessed(jedis);
            for (int i = 0; i < 1000; i++) {
                assertTrue(a.cached(HOST).isQuietAt(System.currentTimeMillis()));
                assertFalse(a.onAdmitted(HOST, 2000, 0).orElseThrow(AssertionError::new).streakEnded());
            }
            long after = commandsProcessed(jedis);
            assertEquals(1, after - before, "only the INFO of this test itself reached Redis");
        }
        wait(b.imposeNotBefore(HOST, 5000));
        assertTrue(a.cached(HOST).isQuietAt(System.currentTimeMillis()), "not yet refreshed");
        a.refresh();
        RedisHostKnowledge.Moments moments = a.cached(HOST);
        assertFalse(moments.isQuietAt(System.currentTimeMillis()));
        long remaining = moments.notBeforeMillis() - System.currentTimeMillis();
        assertTrue(remaining > 3000 && remaining <= 5000, "b's not-before, on a's clock: " + remaining);
    }

    @Test
    void theFleetsPaceReachesTheCacheOnThisJvmsClock() {
        // The request path alone: no refresh, and no background trip for the successes' count.
        RedisHostKnowledge.Options rare = new RedisHostKnowledge.Options().timeoutMillis(2000).refreshMillis(3_600_000)
                .countsOnlyWithTheRefresh();
        RedisHostKnowledge a = store(offset(HOUR), rare);
        RedisHostKnowledge b = store(offset(-HOUR), rare);
        a.cached(HOST);
        a.refresh();
        assertNull(a.cached(HOST).learned(), "nothing learned yet");
        wait(b.recordLearned(HOST, 1000, OptionalInt.of(20), 10.0, 4000, 3000));
        a.refresh();
        RedisHostKnowledge.LearnedPace pace = a.cached(HOST).learned();
        assertNotNull(pace);
        assertTrue(pace.isPaced());
        assertEquals(10.0, pace.refusedRate());
        assertEquals(4000, pace.cycleMillis());
        assertEquals(OptionalInt.of(20), pace.ceiling());
        long now = System.currentTimeMillis() + HOUR;
        long epochAgo = now - pace.epochMillis();
        long learnedAgo = now - pace.learnedAtMillis();
        assertTrue(epochAgo >= 3000 && epochAgo < 4000, "the epoch, on a's clock: " + epochAgo);
        assertTrue(learnedAgo >= 1000 && learnedAgo < 2000, "learned, on a's clock: " + learnedAgo);
        assertFalse(a.cached(HOST).isQuietAt(now), "a paced host is not quiet");
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
