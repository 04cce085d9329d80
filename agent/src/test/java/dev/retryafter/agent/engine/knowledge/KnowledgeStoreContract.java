package dev.retryafter.agent.engine.knowledge;

import dev.retryafter.agent.engine.learn.PaceSchedule;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every {@link KnowledgeStore} must do, whatever keeps the knowledge: memory, a file, Redis.
 * A store keeps no clock, so every moment here is an argument: the suite runs in virtual time, and
 * its concurrent cases check what many threads (or JVMs) running the same operations at once leave
 * behind. Subclass it with {@link #newStore()} returning an empty store.
 */
public abstract class KnowledgeStoreContract {

    public static final String HOST = "portal.example:443";
    public static final String OTHER = "other.example:443";
    public static final long T = 1_793_491_200_000L; // 2026-11-01T00:00:00Z
    public static final long NO_CAP = Long.MAX_VALUE / 4;

    /** A store that knows nothing yet. */
    protected abstract KnowledgeStore newStore() throws Exception;

    /** Whether {@link KnowledgeStore#forget} drops the host; a persistent or shared store may keep it. */
    protected boolean forgetDrops() {
        return true;
    }

    @Test
    void aHostNeverWrittenIsKnownAsNothing() throws Exception {
        KnowledgeStore store = newStore();
        assertEquals(HostKnowledge.NONE, store.read(HOST));
        assertTrue(store.snapshot().isEmpty());
        assertFalse(store.read(HOST).notBefore().isPresent());
        assertFalse(store.read(HOST).holdUntil().isPresent());
    }

    @Test
    void slotsAreBookedOneIntervalApartFromNow() throws Exception {
        KnowledgeStore store = newStore();
        assertEquals(0, store.reserveSlot(HOST, T, 100, NO_CAP));
        assertEquals(100, store.reserveSlot(HOST, T, 100, NO_CAP));
        assertEquals(200, store.reserveSlot(HOST, T, 100, NO_CAP));
        assertEquals(150, store.reserveSlot(HOST, T + 150, 100, NO_CAP), "the next slot is T+300");
        assertEquals(0, store.reserveSlot(HOST, T + 10_000, 0, NO_CAP), "a slot long past: go now");
        assertEquals(0, store.reserveSlot(OTHER, T, 100, NO_CAP), "another host has its own pace");
    }

    @Test
    void noSlotIsBookedBeforeTheNotBeforeMomentNorFurtherOffThanTheMaximumWait() throws Exception {
        KnowledgeStore store = newStore();
        store.imposeNotBefore(HOST, T + 5_000);
        assertEquals(5_000, store.reserveSlot(HOST, T, 100, NO_CAP));
        assertEquals(5_100, store.reserveSlot(HOST, T, 100, NO_CAP));
        store.imposeNotBefore(HOST, T + 60_000);
        assertEquals(1_000, store.reserveSlot(HOST, T, 100, 1_000), "cut to the maximum wait");
    }

    @Test
    void theLaterNotBeforeMomentStands() throws Exception {
        KnowledgeStore store = newStore();
        store.imposeNotBefore(HOST, T + 1_000);
        store.imposeNotBefore(HOST, T + 500);
        assertEquals(OptionalLong.of(T + 1_000), store.read(HOST).notBefore());
        store.imposeNotBefore(HOST, T + 2_000);
        assertEquals(OptionalLong.of(T + 2_000), store.read(HOST).notBefore());
        assertFalse(store.read(OTHER).notBefore().isPresent());
    }

    @Test
    void theLaterHoldStandsAndBarsRequestsUntilItEnds() throws Exception {
        KnowledgeStore store = newStore();
        store.holdUntil(HOST, T + 3_600_000, "first");
        store.holdUntil(HOST, T + 1_800_000, "earlier");
        HostKnowledge known = store.read(HOST);
        assertEquals(OptionalLong.of(T + 3_600_000), known.holdUntil());
        assertEquals(Optional.of("first"), known.holdReason());
        assertTrue(known.isHeldAt(T) && !known.isHeldAt(T + 3_600_000));
        assertEquals(OptionalLong.of(T + 3_600_000), known.notBefore(), "a hold is also a not-before moment");
        store.holdUntil(HOST, T + 7_200_000, "later");
        assertEquals(Optional.of("later"), store.read(HOST).holdReason());
    }

    @Test
    void theFirstVerdictAgainstAHostsHintsStandsAndMerges() throws Exception {
        KnowledgeStore store = newStore();
        assertFalse(store.read(HOST).hintsDistrusted().isPresent());
        store.distrustHints(HOST, "refused when 5 should have been left");
        store.distrustHints(HOST, "its reset named a moment already past");
        assertEquals(Optional.of("refused when 5 should have been left"), store.read(HOST).hintsDistrusted());
        assertEquals(Optional.of("refused when 5 should have been left"), store.readThrough(HOST).hintsDistrusted());
        assertFalse(store.read(OTHER).hintsDistrusted().isPresent());
        store.merge(OTHER, store.read(HOST));
        assertEquals(Optional.of("refused when 5 should have been left"), store.read(OTHER).hintsDistrusted());
    }

    @Test
    void aStreakOpensOnItsFirstRefusalAndCountsTheRest() throws Exception {
        KnowledgeStore store = newStore();
        OpenStreak first = store.recordRefusal(HOST, T, T - 50, OptionalLong.of(30_000), true);
        assertTrue(first.isFirstRefusal());
        assertEquals(T, first.startedAtMillis());
        assertEquals(OptionalLong.of(30_000), first.headerMillis());
        OpenStreak second = store.recordRefusal(HOST, T + 1_000, T + 900, OptionalLong.empty(), false);
        assertFalse(second.isFirstRefusal());
        assertEquals(2, second.refusals());
        assertEquals(T, second.startedAtMillis(), "the streak began at its first refusal");
        assertEquals(OptionalLong.of(30_000), second.headerMillis(), "the first refusal's header is the streak's");
        assertEquals(T + 900, second.lastRefusedSentMillis());
        assertTrue(second.whilePaced());
        OpenStreak late = store.recordRefusal(HOST, T + 1_100, T + 100, OptionalLong.empty(), false);
        assertEquals(T + 900, late.lastRefusedSentMillis(), "a refusal of an older request does not move it back");
        assertEquals(Optional.of(late), store.read(HOST).openStreak());
    }

    @Test
    void aSuccessSentAfterTheStreakBeganEndsIt() throws Exception {
        KnowledgeStore store = newStore();
        assertFalse(store.recordRecovery(HOST, T).isPresent(), "no streak open");
        store.recordRefusal(HOST, T, T - 50, OptionalLong.of(30_000), false);
        store.recordRefusal(HOST, T + 2_000, T + 1_500, OptionalLong.of(28_000), false);
        assertFalse(store.recordRecovery(HOST, T - 10).isPresent(), "sent before the first refusal: says nothing");
        assertTrue(store.read(HOST).openStreak().isPresent(), "still open");

        Optional<KnowledgeStore.StreakEnd> end = store.recordRecovery(HOST, T + 31_000);
        assertTrue(end.isPresent());
        FinishedStreak finished = end.get().streak();
        assertEquals(T, finished.startedAtMillis());
        assertEquals(OptionalLong.of(30_000), finished.headerMillis());
        assertEquals(1_500, finished.lastRefusedAfterMillis());
        assertEquals(31_000, finished.recoveredByMillis());
        assertTrue(end.get().before().openStreak().isPresent());
        assertTrue(end.get().before().finishedStreaks().isEmpty());
        assertEquals(List.of(finished), end.get().after().finishedStreaks());
        assertEquals(end.get().after(), store.read(HOST));
        assertFalse(store.read(HOST).openStreak().isPresent());
        assertFalse(store.recordRecovery(HOST, T + 32_000).isPresent(), "over already");
    }

    @Test
    void aHeaderNamingAnotherMomentToTheSameStreakIsDistrustedForGood() throws Exception {
        KnowledgeStore store = newStore();
        store.recordRefusal(HOST, T, T - 50, OptionalLong.of(14_000), false);
        store.recordRefusal(HOST, T + 30, T - 40, OptionalLong.of(15_000), false);
        assertFalse(store.read(HOST).retryAfterDistrusted().isPresent(), "a second apart: a whole-second header's rounding");
        store.recordRefusal(HOST, T + 150, T - 30, OptionalLong.of(24_000), false); // halves round up, in every store
        assertEquals(Optional.of("Retry-After named moments 10.2s apart to two refusals 0.2s apart"),
                store.read(HOST).retryAfterDistrusted(), "in flight together, told moments ten seconds apart");
        store.recordRefusal(HOST, T + 190, T - 20, OptionalLong.of(40_000), false);
        assertEquals(Optional.of("Retry-After named moments 10.2s apart to two refusals 0.2s apart"),
                store.read(HOST).retryAfterDistrusted(), "the first verdict stands");
        store.recordRecovery(HOST, T + 24_500);
        assertTrue(store.read(HOST).retryAfterDistrusted().isPresent(), "it outlives the streak");

        KnowledgeStore other = newStore();
        other.recordRefusal(HOST, T + 100_000, T + 99_950, OptionalLong.of(5_000), false);
        other.recordRefusal(HOST, T + 105_000, T + 104_950, OptionalLong.of(5_000), false);
        assertFalse(other.read(HOST).retryAfterDistrusted().isPresent(),
                "its wait waited out, told to wait as long again: a limiter that counts refusals moves its moment so");
        other.recordRecovery(HOST, T + 106_000);
        other.recordRefusal(HOST, T + 200_000, T + 199_950, OptionalLong.of(1_000), false);
        other.recordRefusal(HOST, T + 201_020, T + 201_000, OptionalLong.of(10_000), false);
        assertFalse(other.read(HOST).retryAfterDistrusted().isPresent(),
                "sent when the first refusal said, and refused before the successes that end the streak come back: the next window's");
        other.merge(HOST, store.read(HOST));
        assertEquals(store.read(HOST).retryAfterDistrusted(), other.read(HOST).retryAfterDistrusted(), "a verdict merges");
    }

    @Test
    void finishedStreaksAreABoundedAppendNewestFirst() throws Exception {
        KnowledgeStore store = newStore();
        for (int i = 0; i < HostKnowledge.MAX_STREAKS + 3; i++) {
            long start = T + i * 100_000L;
            store.recordRefusal(HOST, start, start, OptionalLong.of(i * 1_000L), false);
            store.recordRecovery(HOST, start + 5_000);
        }
        List<FinishedStreak> kept = store.read(HOST).finishedStreaks();
        assertEquals(HostKnowledge.MAX_STREAKS, kept.size());
        assertEquals(T + (HostKnowledge.MAX_STREAKS + 2) * 100_000L, kept.get(0).startedAtMillis(), "newest first");
        assertEquals(T + 3 * 100_000L, kept.get(kept.size() - 1).startedAtMillis(), "the oldest dropped out");
    }

    @Test
    void thePaceLearnedLaterStands() throws Exception {
        KnowledgeStore store = newStore();
        PaceSchedule first = new PaceSchedule(0.5, T, 120_000);
        PaceSchedule older = new PaceSchedule(2.0, T - 1_000, 120_000);
        store.learn(HOST, T, Optional.of(first), OptionalInt.of(30));
        store.learn(HOST, T - 1_000, Optional.of(older), OptionalInt.of(120));
        assertEquals(Optional.of(first), store.read(HOST).pace());
        assertEquals(OptionalInt.of(30), store.read(HOST).learnedCeiling());
        assertEquals(OptionalLong.of(T), store.read(HOST).paceLearnedAt());
        PaceSchedule retimed = new PaceSchedule(0.5, T + 10_000, 60_000);
        store.learn(HOST, T + 20_000, Optional.of(retimed), OptionalInt.empty());
        assertEquals(Optional.of(retimed), store.read(HOST).pace());
        assertEquals(OptionalInt.of(30), store.read(HOST).learnedCeiling(), "no ceiling given: the learned one stands");
        store.learn(HOST, T + 30_000, Optional.empty(), OptionalInt.of(0));
        assertEquals(Optional.of(retimed), store.read(HOST).pace(), "no pace given: the learned one stands");
        assertEquals(OptionalInt.of(0), store.read(HOST).learnedCeiling());
    }

    @Test
    void aConfirmedPlateauIsKeptWithThePaceAndMerges() throws Exception {
        KnowledgeStore store = newStore();
        PaceSchedule plateau = new PaceSchedule(0.5, T, 120_000, 300_000);
        store.learn(HOST, T, Optional.of(plateau), OptionalInt.of(30));
        assertEquals(Optional.of(plateau), store.read(HOST).pace(), "on the plateau, not the cubic curve's dip");

        KnowledgeStore other = newStore();
        other.merge(HOST, store.read(HOST));
        assertEquals(Optional.of(plateau), other.read(HOST).pace(), "merged with its plateau");
        PaceSchedule curve = new PaceSchedule(0.5, T + 10_000, 120_000);
        other.learn(HOST, T + 10_000, Optional.of(curve), OptionalInt.empty());
        assertEquals(Optional.of(curve), other.read(HOST).pace(), "a curve learned later ends the plateau");
    }

    @Test
    void aLearnedWindowIsKeptWithThePaceAndMerges() throws Exception {
        KnowledgeStore store = newStore();
        PaceSchedule windowed = new PaceSchedule(10.0, T, 30_000, 0, 2_000);
        store.learn(HOST, T, Optional.of(windowed), OptionalInt.of(20));
        assertEquals(Optional.of(windowed), store.read(HOST).pace(), "the 2 s window with the pace");

        KnowledgeStore other = newStore();
        other.merge(HOST, store.read(HOST));
        assertEquals(Optional.of(windowed), other.read(HOST).pace(), "merged with its window");
        assertEquals(2_000, store.read(HOST).restartedAt(T + 60_000).pace().get().windowMillis(), "a new run keeps the window");
    }

    @Test
    void costsAreForgottenFromTheLaterMoment() throws Exception {
        KnowledgeStore store = newStore();
        store.forgetCostsBefore(HOST, T + 5_000);
        store.forgetCostsBefore(HOST, T);
        assertEquals(OptionalLong.of(T + 5_000), store.read(HOST).costsSince());
    }

    @Test
    void mergingKnowledgeKeepsTheLaterOfEverything() throws Exception {
        KnowledgeStore source = newStore();
        source.imposeNotBefore(HOST, T + 9_000);
        source.holdUntil(HOST, T + 3_600_000, "held there");
        source.learn(HOST, T + 100, Optional.of(new PaceSchedule(1.0, T + 100, 120_000)), OptionalInt.of(60));
        source.recordRefusal(HOST, T + 50_000, T + 50_000, OptionalLong.of(1_000), false);
        source.recordRecovery(HOST, T + 52_000);
        HostKnowledge theirs = source.read(HOST);

        KnowledgeStore store = newStore();
        store.imposeNotBefore(HOST, T + 10_000_000);
        store.learn(HOST, T, Optional.of(new PaceSchedule(3.0, T, 120_000)), OptionalInt.of(180));
        store.recordRefusal(HOST, T + 1_000, T + 1_000, OptionalLong.of(2_000), false);
        store.recordRecovery(HOST, T + 4_000);
        store.merge(HOST, theirs);
        HostKnowledge merged = store.read(HOST);
        assertEquals(OptionalLong.of(T + 10_000_000), merged.notBefore(), "the later moment is ours");
        assertEquals(OptionalLong.of(T + 3_600_000), merged.holdUntil(), "their hold");
        assertEquals(OptionalInt.of(60), merged.learnedCeiling(), "their pace, learned later");
        assertEquals(2, merged.finishedStreaks().size(), "both streaks, once each");
        assertEquals(T + 50_000, merged.finishedStreaks().get(0).startedAtMillis(), "newest first");
        store.merge(HOST, theirs);
        assertEquals(merged, store.read(HOST), "merging twice changes nothing");
    }

    @Test
    void aCeilingCountsTheSuccessesInTheWindowOrSinceThePreviousRefusal() throws Exception {
        KnowledgeStore store = newStore();
        assertEquals(0, store.ceilingBefore(HOST, T, 60_000), "nothing counted: nothing let through");
        for (int i = 0; i < 5; i++) {
            store.recordAdmitted(HOST, T + 10 * i);
        }
        store.recordRefusal(HOST, T + 100, T + 90, OptionalLong.empty(), false);
        assertEquals(5, store.ceilingBefore(HOST, T + 100, 60_000));
        for (int i = 0; i < 3; i++) {
            store.recordAdmitted(HOST, T + 200 + 10 * i);
        }
        store.recordRefusal(HOST, T + 300, T + 290, OptionalLong.empty(), false);
        assertEquals(3, store.ceilingBefore(HOST, T + 300, 60_000), "since the previous refusal, which lies in the window");
    }

    @Test
    void knowledgeBuiltFromItsPartsMergesAsIfItsOperationsHadRun() throws Exception {
        KnowledgeStore store = newStore();
        HostKnowledge built = HostKnowledge.of(OptionalLong.of(T + 9_000), OptionalLong.empty(), OptionalLong.empty(),
                Optional.empty(), Optional.of(new PaceSchedule(1.0, T, 120_000)), OptionalLong.of(T), OptionalInt.of(60),
                Optional.of(OpenStreak.of(T + 100, OptionalLong.of(2_000), T + 100, 2, false)), List.of(), OptionalLong.empty());
        store.merge(HOST, built);
        assertEquals(built, store.read(HOST));
        assertEquals(3, store.recordRefusal(HOST, T + 200, T + 200, OptionalLong.empty(), false).refusals());
    }

    @Test
    void theSnapshotHoldsEveryHostWritten() throws Exception {
        KnowledgeStore store = newStore();
        store.imposeNotBefore(HOST, T + 1);
        store.holdUntil(OTHER, T + 2, "held");
        assertEquals(Set.of(HOST, OTHER), store.snapshot().keySet());
        assertEquals(store.read(OTHER), store.snapshot().get(OTHER));
    }

    @Test
    void forgettingAHostDropsItsKnowledgeOnly() throws Exception {
        KnowledgeStore store = newStore();
        store.imposeNotBefore(HOST, T + 1);
        store.imposeNotBefore(OTHER, T + 1);
        store.forget(HOST);
        if (forgetDrops()) {
            assertSame(HostKnowledge.NONE, store.read(HOST));
        }
        assertEquals(OptionalLong.of(T + 1), store.read(OTHER).notBefore());
    }

    // ---- many at once: what the same operations leave behind when run together

    private static final int THREADS = 8;

    @Test
    void concurrentReservationsGetDistinctSlotsOneIntervalApart() throws Exception {
        KnowledgeStore store = newStore();
        int each = 250;
        List<Long> waits = runTogether(() -> {
            List<Long> mine = new ArrayList<>();
            for (int i = 0; i < each; i++) {
                mine.add(store.reserveSlot(HOST, T, 10, NO_CAP));
            }
            return mine;
        });
        Set<Long> distinct = new HashSet<>(waits);
        assertEquals(THREADS * each, distinct.size(), "no slot booked twice");
        for (long i = 0; i < THREADS * each; i++) {
            assertTrue(distinct.contains(i * 10), "slot " + i * 10 + " booked");
        }
    }

    @Test
    void concurrentRefusalsOpenOneStreakAndCountEveryRefusal() throws Exception {
        KnowledgeStore store = newStore();
        int each = 100;
        List<Long> firsts = runTogether(() -> {
            List<Long> mine = new ArrayList<>();
            for (int i = 0; i < each; i++) {
                OpenStreak streak = store.recordRefusal(HOST, T + i, T + i, OptionalLong.empty(), false);
                if (streak.isFirstRefusal()) {
                    mine.add(1L);
                }
            }
            return mine;
        });
        assertEquals(1, firsts.size(), "exactly one refusal began the streak");
        assertEquals(THREADS * each, store.read(HOST).openStreak().get().refusals());
    }

    @Test
    void concurrentMomentsLeaveTheLatest() throws Exception {
        KnowledgeStore store = newStore();
        List<Long> latestOfEach = runTogether(() -> {
            long seed = Thread.currentThread().getId();
            long latest = Long.MIN_VALUE;
            for (int i = 0; i < 500; i++) {
                long moment = T + Math.floorMod(seed * 7919 + i * 104_729L, 1_000_000L);
                latest = Math.max(latest, moment);
                store.imposeNotBefore(HOST, moment);
                store.holdUntil(OTHER, moment, "held");
            }
            return List.of(latest);
        });
        long latest = latestOfEach.stream().mapToLong(Long::longValue).max().getAsLong();
        assertEquals(OptionalLong.of(latest), store.read(HOST).notBefore());
        assertEquals(OptionalLong.of(latest), store.read(OTHER).holdUntil());
    }

    @Test
    void concurrentSuccessesEndAStreakOnce() throws Exception {
        KnowledgeStore store = newStore();
        store.recordRefusal(HOST, T, T, OptionalLong.of(5_000), false);
        List<Long> ended = runTogether(() -> {
            List<Long> mine = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                if (store.recordRecovery(HOST, T + 6_000 + i).isPresent()) {
                    mine.add(1L);
                }
            }
            return mine;
        });
        assertEquals(1, ended.size());
        assertEquals(1, store.read(HOST).finishedStreaks().size());
    }

    /** Runs {@code task} on {@link #THREADS} threads released together; their results, concatenated. */
    private static List<Long> runTogether(Callable<List<Long>> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<List<Long>>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                results.add(pool.submit(() -> {
                    start.await();
                    return task.call();
                }));
            }
            start.countDown();
            List<Long> all = new ArrayList<>();
            for (Future<List<Long>> result : results) {
                all.addAll(result.get(60, TimeUnit.SECONDS));
            }
            return all;
        } finally {
            pool.shutdownNow();
        }
    }
}
