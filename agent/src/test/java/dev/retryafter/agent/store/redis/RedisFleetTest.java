package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.store.fleet.FleetRefusal;
import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.engine.knowledge.FinishedStreak;
import dev.retryafter.agent.engine.knowledge.HostKnowledge;
import dev.retryafter.agent.engine.knowledge.InMemoryKnowledgeStore;
import dev.retryafter.agent.engine.learn.PaceSchedule;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
class RedisFleetTest {

    private static final String HOST = "portal.example:443";
    private static final long HOUR = TimeUnit.HOURS.toMillis(1);

    @RegisterExtension
    static final RedisFixture REDIS = new RedisFixture();
    private static final AtomicInteger FLEETS = new AtomicInteger();

    private final List<RedisKnowledgeStore> opened = new ArrayList<>();
    private String fleet;
    private RecordingEvents events;

    @BeforeEach
    void newFleet() {
        fleet = "test" + FLEETS.incrementAndGet(); // each test its own keys: no flush between tests
        events = new RecordingEvents();
    }

    @AfterEach
    void closeStores() {
        opened.forEach(RedisKnowledgeStore::close);
        assertEquals(List.of(), events.all(), "Redis was up throughout: no down or back line");
    }

    private RedisKnowledgeStore store(Clock clock) {
        return store(clock, new RedisKnowledgeStore.Options().timeoutMillis(2000)); // a loaded CI machine is not a dead Redis
    }

    private RedisKnowledgeStore store(Clock clock, RedisKnowledgeStore.Options options) {
        RedisKnowledgeStore store = RedisFixture.store(REDIS.server().address(), fleet, clock, options, events);
        opened.add(store);
        return store;
    }

    private static Clock offset(long millis) {
        Clock system = Clock.system();
        return () -> system.millis() + millis;
    }

    /** What one operation, run on knowledge of nothing, changes: the knowledge a JVM merges into the fleet's. */
    private static HostKnowledge change(java.util.function.Consumer<InMemoryKnowledgeStore> operation) {
        InMemoryKnowledgeStore scratch = new InMemoryKnowledgeStore();
        operation.accept(scratch);
        return scratch.read(HOST);
    }

    private static OptionalLong reserve(RedisKnowledgeStore store, String host, long interval, long maxWait, long window) {
        return store.reserve(host, System.currentTimeMillis(), interval, maxWait, window);
    }

    private static HostKnowledge read(RedisKnowledgeStore store, String host) {
        HostKnowledge known = store.readFleet(host);
        assertNotNull(known, "Redis is up: the store answers");
        return known;
    }

    private static long wait(OptionalLong reply) {
        assertTrue(reply.isPresent(), "Redis is up: the store answers");
        return reply.getAsLong();
    }

    @Test
    void reservationsFollowOneScheduleAtTheIntervalInTheOrderAsked() {
        RedisKnowledgeStore store = store(Clock.system());
        long start = System.nanoTime();
        for (int i = 0; i < 10; i++) {
            long wait = wait(reserve(store, HOST, 100, 60_000, 2000));
            long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + 1;
            assertTrue(wait <= 100L * i, "booking " + i + " waits " + wait + " ms, later than its slot at " + 100 * i);
            assertTrue(wait >= 100L * i - elapsed, "booking " + i + " waits " + wait + " ms: earlier than its slot "
                    + 100 * i + " less the " + elapsed + " ms the test took");
        }
    }

    @Test
    void noWaitIsLongerThanMaxWaitAndAnUnpacedHostIsNotBooked() {
        RedisKnowledgeStore store = store(Clock.system());
        assertEquals(0, wait(reserve(store, HOST, 1000, 1500, 2000)));
        long second = wait(reserve(store, HOST, 1000, 1500, 2000));
        assertTrue(second > 500 && second <= 1000, "second booking one interval later: " + second);
        for (int i = 0; i < 3; i++) {
            long wait = wait(reserve(store, HOST, 1000, 1500, 2000));
            assertTrue(wait <= 1500 && wait > 1000, "bounded by max-wait: " + wait);
        }
        String other = "other.example:80";
        for (int i = 0; i < 5; i++) {
            assertEquals(0, wait(reserve(store, other, 0, 1500, 2000)), "no pace, no not-before: go now");
        }
    }

    @Test
    void concurrentCallersOfTwoStoresLoseNoBooking() throws Exception {
        RedisKnowledgeStore a = store(Clock.system());
        RedisKnowledgeStore b = store(offset(HOUR));
        int threads = 8;
        int each = 25;
        long interval = 10;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<List<Long>>> results = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            RedisKnowledgeStore store = t % 2 == 0 ? a : b;
            results.add(pool.submit(() -> {
                go.await();
                List<Long> waits = new ArrayList<>();
                for (int i = 0; i < each; i++) {
                    waits.add(wait(reserve(store, HOST, interval, 60_000, 2000)));
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
        long readAt = System.currentTimeMillis();
        long nextSlot = read(a, HOST).nextSlot().getAsLong();
        long readDone = System.currentTimeMillis();
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + 1;
        long booked = threads * each * interval;
        long ahead = nextSlot - readAt;
        // A lost update (two callers reading one slot) leaves the schedule short of where 200 bookings put it.
        assertTrue(nextSlot - readDone <= booked, "next slot " + ahead + " ms ahead: more than the " + booked + " booked");
        assertTrue(ahead >= booked - elapsed, "next slot " + ahead + " ms ahead: " + booked + " ms were booked, and only "
                + elapsed + " ms have passed");
    }

    @Test
    void clientsWhoseClocksDifferByHoursShareOneSchedule() {
        RedisKnowledgeStore early = store(offset(-HOUR));
        RedisKnowledgeStore late = store(offset(HOUR));
        long start = System.nanoTime();
        for (int i = 0; i < 6; i++) {
            RedisKnowledgeStore store = i % 2 == 0 ? early : late;
            long wait = wait(reserve(store, HOST, 200, 60_000, 2000));
            long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + 1;
            assertTrue(wait <= 200L * i && wait >= 200L * i - elapsed, "booking " + i + " waits " + wait);
        }
        // A not-before imposed by one is the other's, in its own clock's terms.
        String other = "other.example:80";
        long lateNow = System.currentTimeMillis() + HOUR;
        InMemoryKnowledgeStore imposed = new InMemoryKnowledgeStore();
        imposed.imposeNotBefore(other, lateNow + 5000);
        assertTrue(late.mergeIntoFleet(other, imposed.read(other)));
        long wait = wait(reserve(early, other, 0, 60_000, 2000));
        // Within a millisecond: the moment went from late's clock to Redis's, each rounding to the millisecond.
        assertTrue(wait > 4000 && wait <= 5001, "the early clock waits the same 5 s, not 2 h more or less: " + wait);
        long remaining = read(early, other).notBefore().getAsLong() - (System.currentTimeMillis() - HOUR);
        assertTrue(remaining > 4000 && remaining <= 5001, "read on the early clock: " + remaining);
    }

    @Test
    void aLaterNotBeforeWinsAnEarlierOneDoesNot() {
        RedisKnowledgeStore store = store(Clock.system());
        long now = System.currentTimeMillis();
        assertTrue(store.mergeIntoFleet(HOST, change(s -> s.imposeNotBefore(HOST, now + 3000))));
        assertTrue(store.mergeIntoFleet(HOST, change(s -> s.imposeNotBefore(HOST, now + 500))));
        long kept = read(store, HOST).notBefore().getAsLong() - now;
        assertTrue(kept > 2900 && kept <= 3100, "the earlier moment does not replace the later: " + kept);
        assertTrue(store.mergeIntoFleet(HOST, change(s -> s.imposeNotBefore(HOST, now + 8000))));
        long reserved = wait(reserve(store, HOST, 0, 60_000, 2000));
        assertTrue(reserved > 7000 && reserved <= 8001, "the later moment wins, and a booking waits for it: " + reserved);
        long bounded = wait(reserve(store, HOST, 0, 1000, 2000));
        assertEquals(1000, bounded, "but never more than max-wait");
    }

    @Test
    void aLaterHoldWinsWithItsReasonAndNoRequestGoesBeforeItEnds() throws Exception {
        RedisKnowledgeStore store = store(Clock.system());
        long now = System.currentTimeMillis();
        assertTrue(store.mergeIntoFleet(HOST, change(s -> s.holdUntil(HOST, now + 60_000, "an hour away, twice"))));
        assertTrue(store.mergeIntoFleet(HOST, change(s -> s.holdUntil(HOST, now + 10_000, "a shorter one"))));
        HostKnowledge held = read(store, HOST);
        assertTrue(held.isHeldAt(System.currentTimeMillis()));
        assertEquals(Optional.of("an hour away, twice"), held.holdReason(), "the earlier end does not replace the later, nor its reason");
        assertTrue(held.notBefore().getAsLong() >= held.holdUntil().getAsLong(), "nothing goes before the hold ends");
        assertTrue(store.mergeIntoFleet(HOST, change(s -> s.holdUntil(HOST, now + 120_000, "two minutes"))));
        assertEquals(Optional.of("two minutes"), read(store, HOST).holdReason());
        try (Jedis jedis = new Jedis("127.0.0.1", REDIS.server().port())) {
            assertEquals("1", jedis.hget(store.hashKey(HOST), "holds"), "a hold confirmed while held is the same hold");
        }
        long wait = wait(reserve(store, HOST, 0, 200_000, 2000));
        assertTrue(wait > 110_000, "a booking waits for the hold: " + wait);
        assertTrue(store.seen(HOST).isHeldAt(System.currentTimeMillis() + 100_000), "and this JVM's view of the fleet knows it at once");
    }

    @Test
    void finishedStreaksAreKeptNewestFirstAndBounded() {
        RedisKnowledgeStore store = store(Clock.system());
        long now = System.currentTimeMillis();
        List<FinishedStreak> all = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            long start = now - 70_000 + 10_000 * i;
            int n = i;
            HostKnowledge one = change(s -> {
                s.recordRefusal(HOST, start, start + 10 + n, OptionalLong.of(1000 * n), n % 2 == 0);
                s.recordRecovery(HOST, start + 2000 + n);
            });
            assertTrue(store.mergeIntoFleet(HOST, one));
            all.add(0, one.finishedStreaks().get(0));
        }
        assertTrue(store.mergeIntoFleet(HOST, change(s -> {
            s.recordRefusal(HOST, now, now + 5, OptionalLong.empty(), false);
            s.recordRecovery(HOST, now + 6);
        })));
        assertTrue(store.mergeIntoFleet(HOST, HostKnowledge.of(OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(),
                Optional.empty(), Optional.empty(), OptionalLong.empty(), java.util.OptionalInt.empty(), Optional.empty(),
                List.of(all.get(0)), OptionalLong.empty())), "merged back twice: once");
        List<FinishedStreak> streaks = read(store, HOST).finishedStreaks();
        assertEquals(HostKnowledge.MAX_STREAKS, streaks.size(), "bounded: " + streaks);
        assertFalse(streaks.get(0).headerMillis().isPresent(), "the newest first: " + streaks);
        assertEquals(6, streaks.get(1).lastRefusedAfterMillis() - 10, "then the 7th: " + streaks);
        assertEquals(OptionalLong.of(6000), streaks.get(1).headerMillis());
        assertEquals(OptionalLong.of(3000), streaks.get(4).headerMillis());
        long age = now - streaks.get(4).startedAtMillis();
        assertTrue(age >= 39_000 && age < 45_000, "began 40 s ago, to the trip's time: " + age);
    }

    @Test
    void whatWasLearnedLaterWinsWhoeverWritesLast() throws InterruptedException {
        RedisKnowledgeStore fresh = store(offset(HOUR));
        RedisKnowledgeStore stale = store(offset(-HOUR));
        assertFalse(read(fresh, HOST).paceLearnedAt().isPresent(), "nothing learned yet");
        long freshNow = System.currentTimeMillis() + HOUR;
        assertTrue(fresh.mergeIntoFleet(HOST, change(s -> s.learn(HOST, freshNow, Optional.of(new PaceSchedule(9.0, freshNow - 2000, 4000)),
                java.util.OptionalInt.of(18)))));
        long staleNow = System.currentTimeMillis() - HOUR;
        assertTrue(stale.mergeIntoFleet(HOST, change(s -> s.learn(HOST, staleNow - 30_000,
                Optional.of(new PaceSchedule(20.0, staleNow - 30_000, 8000)), java.util.OptionalInt.of(40))))); // old news, written last
        HostKnowledge learned = read(stale, HOST);
        assertEquals(java.util.OptionalInt.of(18), learned.learnedCeiling(), "the fresher learning is kept");
        assertEquals(9.0, learned.pace().get().refusedRatePerSecond());
        assertEquals(4000, learned.pace().get().cycleMillis());
        long epochAgo = System.currentTimeMillis() - HOUR - learned.pace().get().epochMillis();
        // A moment goes to the fleet as a duration from Redis's clock and comes back as one, each cut to the millisecond.
        assertTrue(epochAgo >= 1_995 && epochAgo < 10_000, "epoch, on the stale clock: " + epochAgo);
        // News a few milliseconds newer: within one millisecond of the fresh learning, the two tie and the first stands.
        Thread.sleep(5);
        long newer = System.currentTimeMillis() - HOUR;
        assertTrue(stale.mergeIntoFleet(HOST, change(s -> s.learn(HOST, newer, Optional.empty(), java.util.OptionalInt.of(12)))));
        HostKnowledge after = read(fresh, HOST);
        assertEquals(java.util.OptionalInt.of(12), after.learnedCeiling(), "newer news wins");
        assertEquals(9.0, after.pace().get().refusedRatePerSecond(), "no pace given: the fleet's stands");
    }

    private static FleetRefusal refusal(RedisKnowledgeStore store, long sentAgo, OptionalLong header) {
        long now = System.currentTimeMillis();
        FleetRefusal refusal = store.refusal(HOST, now, 60_000, now - sentAgo, header, false);
        assertNotNull(refusal, "Redis is up: the store answers");
        return refusal;
    }

    /**
     * An unpaced host makes no trip of its own, and a fleet's first burst is over within a refresh:
     * another JVM's refusal still counts these successes, carried by a trip the first success asked for.
     */
    @Test
    void anotherJvmsRefusalCountsSuccessesNoOperationCarried() throws Exception {
        RedisKnowledgeStore.Options noRefresh = new RedisKnowledgeStore.Options().timeoutMillis(2000).refreshMillis(3_600_000);
        RedisKnowledgeStore a = store(Clock.system(), noRefresh);
        RedisKnowledgeStore b = store(Clock.system(), noRefresh);
        for (int i = 0; i < 6; i++) {
            a.admitted(HOST, 2_000);
        }
        Thread.sleep(20 * RedisKnowledgeStore.EARLY_FLUSH_MILLIS); // generous: the trip is asked for at once
        long now = System.currentTimeMillis();
        assertEquals(6, b.refusal(HOST, now, 2_000, now, OptionalLong.empty(), false).ceiling,
                "a's six, though a made no trip of its own and no refresh came");
    }

    /**
     * A long window's ceiling can wait for the refresh: its successes ask for no trip of their own, so
     * a busy host of the default window costs Redis a refresh's trips alone.
     */
    @Test
    void aLongWindowsSuccessesWaitForTheRefresh() throws Exception {
        RedisKnowledgeStore.Options slowRefresh = new RedisKnowledgeStore.Options().timeoutMillis(2000).refreshMillis(5_000);
        long window = 500_000; // an 80th of it is later than the refresh
        RedisKnowledgeStore a = store(Clock.system(), slowRefresh);
        RedisKnowledgeStore b = store(Clock.system(), slowRefresh);
        for (int i = 0; i < 6; i++) {
            a.admitted(HOST, window);
        }
        Thread.sleep(20 * RedisKnowledgeStore.EARLY_FLUSH_MILLIS); // a short window's trip would have gone by now
        long now = System.currentTimeMillis();
        assertEquals(0, b.refusal(HOST, now, window, now, OptionalLong.empty(), false).ceiling, "a's six wait for its refresh");
        assertEquals(RedisKnowledgeStore.EARLY_FLUSH_MILLIS, RedisKnowledgeStore.earlyFlushMillis(2_000), "a window of 2 s: within 25 ms");
        assertEquals(750, RedisKnowledgeStore.earlyFlushMillis(60_000), "the default window: later than the default refresh");
    }

    @Test
    void theCeilingCountsEveryJvmsSuccessesSinceThePreviousRefusal() {
        RedisKnowledgeStore a = store(offset(HOUR));
        RedisKnowledgeStore b = store(offset(-HOUR));
        for (int i = 0; i < 6; i++) {
            a.admitted(HOST, 60_000);
        }
        for (int i = 0; i < 4; i++) {
            b.admitted(HOST, 60_000);
        }
        b.refresh(); // b's count travels with its next refresh
        FleetRefusal first = refusal(a, 0, OptionalLong.of(2000));
        assertEquals(10, first.ceiling, "a's six and b's four");
        assertEquals(60_000, first.spanMillis, "counted over the window");
        assertTrue(first.first);
        FleetRefusal echo = refusal(b, 0, OptionalLong.empty());
        assertEquals(0, echo.ceiling, "the streak's echo: nothing admitted since");
        assertTrue(echo.spanMillis < 10_000, "counted since the previous refusal, a moment ago, not over the window: " + echo.spanMillis);
        assertFalse(echo.first);
        assertEquals(2, echo.streak.refusals(), "b's refusal counts into a's streak");
        assertEquals(OptionalLong.of(2000), echo.streak.headerMillis(), "with the header of the streak's first refusal");
        for (int i = 0; i < 3; i++) {
            b.admitted(HOST, 60_000);
        }
        wait(reserve(b, HOST, 0, 1000, 60_000)); // a booking carries the count too
        assertEquals(3, refusal(a, 0, OptionalLong.empty()).ceiling);
        try (Jedis jedis = new Jedis("127.0.0.1", REDIS.server().port())) {
            assertEquals("3", jedis.hget(a.hashKey(HOST), "refusals"));
        }
    }

    @Test
    void aSuccessSentAfterTheFleetsStreakBeganEndsItForEveryJvm() throws Exception {
        RedisKnowledgeStore a = store(offset(HOUR));
        RedisKnowledgeStore b = store(offset(-HOUR));
        long bNow = System.currentTimeMillis() - HOUR;
        assertEquals(Optional.empty(), b.recovery(HOST, bNow, bNow), "no streak: nothing to end");
        refusal(a, 10, OptionalLong.of(3000));
        Thread.sleep(30);
        refusal(b, 5, OptionalLong.empty());
        HostKnowledge open = read(a, HOST);
        assertEquals(2, open.openStreak().get().refusals());
        b.refresh();
        assertTrue(b.seen(HOST).openStreak().isPresent(), "b's view knows a streak is open");
        bNow = System.currentTimeMillis() - HOUR;
        assertEquals(Optional.empty(), b.recovery(HOST, bNow, bNow - 60_000), "sent before the streak began: says nothing about recovery");
        Thread.sleep(50);
        long aNow = System.currentTimeMillis() + HOUR;
        Optional<FinishedStreak> ended = a.recovery(HOST, aNow, aNow);
        assertTrue(ended.isPresent());
        FinishedStreak streak = ended.get();
        assertEquals(OptionalLong.of(3000), streak.headerMillis(), "the first refusal's header, from a");
        assertTrue(streak.lastRefusedAfterMillis() >= 20 && streak.lastRefusedAfterMillis() < 10_000, "b's refusal went out after a's: " + streak);
        assertTrue(streak.recoveredByMillis() >= 80 && streak.recoveredByMillis() < 10_000, streak.toString());
        HostKnowledge after = read(b, HOST);
        assertFalse(after.openStreak().isPresent(), "closed for the fleet");
        assertEquals(1, after.finishedStreaks().size());
        assertEquals(streak.recoveredByMillis(), after.finishedStreaks().get(0).recoveredByMillis());
        bNow = System.currentTimeMillis() - HOUR;
        assertEquals(Optional.empty(), b.recovery(HOST, bNow, bNow), "b's late success: already closed");
    }

    @Test
    void aHeaderCaughtNamingTwoMomentsOnOneJvmIsDistrustedOnEvery() throws Exception {
        RedisKnowledgeStore a = store(Clock.system());
        RedisKnowledgeStore b = store(Clock.system());
        long now = System.currentTimeMillis();
        a.recordRefusal(HOST, now, now - 10, OptionalLong.of(14_000), true);
        assertFalse(a.read(HOST).retryAfterDistrusted().isPresent());
        now = System.currentTimeMillis();
        b.recordRefusal(HOST, now, now - 10, OptionalLong.of(24_000), true);
        String why = b.read(HOST).retryAfterDistrusted().orElseThrow(() -> new AssertionError("in flight together, told 14 s and 24 s"));
        // Redis's own clock times the refusals, and on two busy cores it moved 0.1 s between the two: the moments are told
        // 10 s apart beyond that.
        java.util.regex.Matcher told = java.util.regex.Pattern.compile(
                "Retry-After named moments (\\d+\\.\\d)s apart to two refusals (\\d+\\.\\d)s apart").matcher(why);
        assertTrue(told.matches(), why);
        double between = Double.parseDouble(told.group(2));
        assertTrue(between < 5 && Math.abs(Double.parseDouble(told.group(1)) - between - 10) <= 0.11, why);
        now = System.currentTimeMillis();
        a.recordRefusal(HOST, now, now - 10, OptionalLong.empty(), true);
        assertEquals(Optional.of(why), a.read(HOST).retryAfterDistrusted(), "a hears it with its next refusal");
        assertEquals(Optional.of(why), a.readFleet(HOST).retryAfterDistrusted(), "the fleet keeps it");
        RedisKnowledgeStore c = store(Clock.system());
        c.read(HOST);
        c.refresh();
        assertEquals(Optional.of(why), c.read(HOST).retryAfterDistrusted(), "a JVM never refused hears it with the refresh");
    }

    @Test
    void theScheduleAndTheCostsMomentMergeLaterWins() {
        RedisKnowledgeStore store = store(Clock.system());
        long now = System.currentTimeMillis();
        InMemoryKnowledgeStore booked = new InMemoryKnowledgeStore();
        booked.reserveSlot(HOST, now + 3999, 1, Long.MAX_VALUE / 4); // the next slot: now + 4000
        assertTrue(store.mergeIntoFleet(HOST, booked.read(HOST)));
        long ahead = read(store, HOST).nextSlot().getAsLong() - now;
        assertTrue(ahead > 3000 && ahead <= 4100, "merged: " + ahead);
        long waited = wait(reserve(store, HOST, 100, 60_000, 2000));
        assertTrue(waited > 3000 && waited <= 4001, "a booking waits for the merged slot, to the millisecond: " + waited);
        assertTrue(store.mergeIntoFleet(HOST, change(s -> s.forgetCostsBefore(HOST, now - 5000))));
        assertTrue(store.mergeIntoFleet(HOST, change(s -> s.forgetCostsBefore(HOST, now - 60_000))));
        long since = now - read(store, HOST).costsSince().getAsLong();
        assertTrue(since >= 4900 && since < 10_000, "an earlier moment does not replace the later: " + since);
    }

    @Test
    void everyKeyExpires() throws InterruptedException {
        long ttl = TimeUnit.MINUTES.toMillis(10);
        RedisKnowledgeStore store = store(Clock.system(), new RedisKnowledgeStore.Options().timeoutMillis(2000).ttlMillis(ttl));
        store.admitted(HOST, 2000);
        wait(reserve(store, HOST, 100, 1000, 2000));
        long now = System.currentTimeMillis();
        assertTrue(store.mergeIntoFleet(HOST, change(s -> {
            s.recordRefusal(HOST, now, now, OptionalLong.empty(), false);
            s.recordRecovery(HOST, now + 2);
        })));
        InMemoryKnowledgeStore held = new InMemoryKnowledgeStore();
        held.holdUntil("held.example:80", now + TimeUnit.HOURS.toMillis(2), "long");
        assertTrue(store.mergeIntoFleet("held.example:80", held.read("held.example:80")));
        try (Jedis jedis = new Jedis("127.0.0.1", REDIS.server().port())) {
            String hash = store.hashKey(HOST);
            assertEquals("retry-after:{" + fleet + "}:host:" + HOST, hash);
            // The success may have gone with the store's early flush, on its own thread, rather than with the reservation.
            for (long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5); !jedis.exists(hash + ":admitted") && System.nanoTime() < until; ) {
                Thread.sleep(10);
            }
            for (String key : List.of(hash, hash + ":streaks", hash + ":admitted")) {
                long pttl = jedis.pttl(key);
                assertTrue(pttl > 0 && pttl <= ttl, key + " expires in " + pttl);
            }
            long heldFor = jedis.pttl(store.hashKey("held.example:80"));
            assertTrue(heldFor > ttl, "a hold outlives the usual expiry: " + heldFor);
            Map<String, String> fields = jedis.hgetAll(hash);
            assertEquals("1", fields.get("v"), "versioned: " + fields);
        }
    }

    @Test
    void aConfirmedPlateauTravelsWithThePaceAndAHashWithoutOneReadsAsTheCurve() {
        RedisKnowledgeStore store = store(Clock.system());
        long now = System.currentTimeMillis();
        assertTrue(store.mergeIntoFleet(HOST, change(s -> s.learn(HOST, now, Optional.of(new PaceSchedule(2.0, now, 4000, 90_000)),
                OptionalInt.of(20)))));
        assertEquals(90_000, read(store, HOST).pace().get().probeAfterMillis());
        try (Jedis jedis = new Jedis("127.0.0.1", REDIS.server().port())) {
            jedis.hdel(store.hashKey(HOST), "probe"); // as a hash written before plateaus were kept
        }
        PaceSchedule pace = read(store, HOST).pace().get();
        assertEquals(0, pace.probeAfterMillis());
        assertEquals(4000, pace.cycleMillis());

        assertTrue(store.mergeIntoFleet(HOST, change(s -> s.learn(HOST, now + 1, Optional.of(new PaceSchedule(2.0, now, 4000, 90_000)),
                OptionalInt.of(20)))));
        try (Jedis jedis = new Jedis("127.0.0.1", REDIS.server().port())) {
            // an older agent of the fleet rewrites the pace as it knows it, and leaves the plateau behind
            jedis.hset(store.hashKey(HOST), Map.of("rate", "3.0", "cycle", "5000", "epoch", Long.toString(now + 7)));
        }
        assertEquals(0, read(store, HOST).pace().get().probeAfterMillis(), "a plateau left behind is not the new pace's");
    }

    @Test
    void theFleetsKnowledgeReachesThisJvmsViewOnItsClock() {
        // No refresh but the test's own, and no background trip for the successes' count.
        RedisKnowledgeStore.Options rare = new RedisKnowledgeStore.Options().timeoutMillis(2000).refreshMillis(3_600_000).countsOnlyWithTheRefresh();
        RedisKnowledgeStore a = store(offset(HOUR), rare);
        RedisKnowledgeStore b = store(offset(-HOUR), rare);
        assertNull(a.seen(HOST), "never refreshed: nothing seen");
        a.refresh();
        assertFalse(a.seen(HOST).pace().isPresent(), "nothing learned yet");
        long bNow = System.currentTimeMillis() - HOUR;
        assertTrue(b.mergeIntoFleet(HOST, change(s -> s.learn(HOST, bNow - 1000, Optional.of(new PaceSchedule(10.0, bNow - 3000, 4000)),
                java.util.OptionalInt.of(20)))));
        assertTrue(b.mergeIntoFleet(HOST, change(s -> s.imposeNotBefore(HOST, bNow + 5000))));
        a.refresh();
        HostKnowledge seen = a.seen(HOST);
        PaceSchedule pace = seen.pace().get();
        assertEquals(10.0, pace.refusedRatePerSecond());
        assertEquals(4000, pace.cycleMillis());
        assertEquals(java.util.OptionalInt.of(20), seen.learnedCeiling());
        long now = System.currentTimeMillis() + HOUR;
        long epochAgo = now - pace.epochMillis();
        long learnedAgo = now - seen.paceLearnedAt().getAsLong();
        long remaining = seen.notBefore().getAsLong() - now;
        assertTrue(epochAgo >= 2900 && epochAgo < 4000, "the epoch, on a's clock: " + epochAgo);
        assertTrue(learnedAgo >= 900 && learnedAgo < 2000, "learned, on a's clock: " + learnedAgo);
        assertTrue(remaining > 3000 && remaining <= 5100, "b's not-before, on a's clock: " + remaining);
    }
}
