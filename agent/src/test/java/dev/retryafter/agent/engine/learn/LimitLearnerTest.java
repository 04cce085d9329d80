package dev.retryafter.agent.engine.learn;

import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.engine.knowledge.InMemoryKnowledgeStore;
import dev.retryafter.agent.engine.knowledge.KnowledgeStore;
import dev.retryafter.agent.engine.knowledge.Learned;
import org.junit.jupiter.api.Test;

import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a host's first streak and later refusals teach of its limit, with no window configured, over a real in-memory store. */
class LimitLearnerTest {

    private static final String HOST = "portal.example:443";

    private final InMemoryKnowledgeStore store = new InMemoryKnowledgeStore();
    private final LimitLearner learner = new LimitLearner(HOST, store, store.read(HOST));

    /** 100 let through from 0 to 4.95 s (a worker at 20 a second), then refused at 5 s and at each of {@code retries}. */
    private void firstBurstRefusedAt(long... retries) {
        learner.onSent(0);
        for (int i = 0; i < 100; i++) {
            store.recordAdmitted(HOST, i * 50L);
            learner.onAdmitted(i * 50L);
        }
        store.recordRefusal(HOST, 5_000, 5_000, OptionalLong.of(0), false);
        for (long retry : retries) {
            store.recordRefusal(HOST, retry, retry, OptionalLong.of(0), false);
        }
    }

    private Learned letThroughAt(long sentAt) {
        KnowledgeStore.StreakEnd end = store.recordRecovery(HOST, sentAt).get();
        store.recordAdmitted(HOST, sentAt);
        return learner.onStreakEnded(Policy.DEFAULTS, sentAt, end, null, false);
    }

    @Test
    void theFirstPeriodEndsBetweenTheLastRefusalAndTheFirstLetThroughWhereTheyAreClose() {
        firstBurstRefusedAt(6_000, 9_600);
        Learned learned = letThroughAt(10_400);

        assertEquals(10_000, learner.learnedWindowMillis(), "the middle of 9.6 s and 10.4 s");
        assertEquals(100, learned.ceiling());
        assertEquals(10.0, learned.pacePerSecond(), 1e-9, "100 in 10 s, on its plateau: a lower bound, probed from");
        assertEquals(10_000, learner.windowMillis(Policy.DEFAULTS));
        assertEquals(10_000, store.read(HOST).pace.windowMillis(), "the window goes with the pace, for the next run and the fleet");
    }

    @Test
    void aFirstPeriodWhoseEndTheLastTriesOvershotIsReadToTheRecoveryALowerBound() {
        firstBurstRefusedAt(6_050, 7_100);
        Learned learned = letThroughAt(24_676); // the second-last try waited 17.5 s: the 10 s window's end was passed long before

        assertEquals(24_676, learner.learnedWindowMillis());
        assertEquals(100 * 1000.0 / 24_676, learned.pacePerSecond(), 1e-9);
    }

    @Test
    void aConfiguredWindowNoLongerThanThePeriodStandsALongerOneIsOverruled() {
        firstBurstRefusedAt(6_000, 9_600);
        KnowledgeStore.StreakEnd end = store.recordRecovery(HOST, 10_400).get();
        learner.onStreakEnded(Policy.builder().windowMillis(2_000).build(), 10_400, end, null, false);
        assertEquals(2_000, learner.learnedWindowMillis(), "a hint consistent with the evidence");

        LimitLearner other = new LimitLearner("other:443", store, store.read("other:443"));
        other.onSent(0);
        store.recordAdmitted("other:443", 0);
        other.onAdmitted(0);
        store.recordRefusal("other:443", 1_000, 1_000, OptionalLong.empty(), false);
        KnowledgeStore.StreakEnd otherEnd = store.recordRecovery("other:443", 2_000).get();
        other.onStreakEnded(Policy.builder().windowMillis(60_000).build(), 2_000, otherEnd, null, false);
        assertEquals(2_000, other.learnedWindowMillis(), "a one-minute window overruled by a limit that had room again by 2 s");
    }

    @Test
    void aStreakEndedAfterTheNextOneOpenedTeachesNothingAndAWindowOnceLearnedStands() {
        firstBurstRefusedAt(6_000, 9_600);
        KnowledgeStore.StreakEnd end = store.recordRecovery(HOST, 10_400).get();
        assertNull(learner.onStreakEnded(Policy.DEFAULTS, 10_400, end, null, true), "the next streak, already open, learned from it");
        assertEquals(0, learner.learnedWindowMillis());

        LimitLearner fresh = new LimitLearner("fresh:443", store, store.read("fresh:443"));
        fresh.onSent(0);
        store.recordAdmitted("fresh:443", 0);
        store.recordRefusal("fresh:443", 900, 900, OptionalLong.of(0), false);
        fresh.onStreakEnded(Policy.DEFAULTS, 1_000, store.recordRecovery("fresh:443", 1_000).get(), null, false);
        assertEquals(950, fresh.learnedWindowMillis());
        store.recordRefusal("fresh:443", 30_000, 30_000, OptionalLong.of(0), true);
        KnowledgeStore.StreakEnd later = store.recordRecovery("fresh:443", 35_000).get();
        assertNull(fresh.onStreakEnded(Policy.DEFAULTS, 35_000, later, store.read("fresh:443").pace, false));
        assertEquals(950, fresh.learnedWindowMillis(), "a later streak's recovery is not a first period");
    }

    @Test
    void aWindowAnotherRunLearnedIsAdoptedNotMeasuredAgain() {
        firstBurstRefusedAt(6_000, 9_600);
        letThroughAt(10_400);
        LimitLearner nextRun = new LimitLearner(HOST, store, store.read(HOST));
        assertEquals(10_000, nextRun.learnedWindowMillis());
        assertEquals(10_000, nextRun.knownWindowMillis(Policy.DEFAULTS));
        assertEquals(0, new LimitLearner("unknown:443", store, store.read("unknown:443")).knownWindowMillis(Policy.DEFAULTS),
                "nothing learned, nothing configured: the waits look for the window's end themselves");
    }

    @Test
    void aLaterRefusalWhilePacedReadsWhatTheHostLetThroughWhenThatIsLessThanThePace() {
        firstBurstRefusedAt(6_000, 9_600);
        letThroughAt(10_400);
        // On a plateau of 10 a second, the host let through 8 a second from the streak's end: the limit fell.
        PaceSchedule plateau = new PaceSchedule(10.0, 10_400, 60_000, 100_000, 10_000);
        for (long t = 10_500; t < 35_000; t += 125) {
            store.recordAdmitted(HOST, t);
        }
        store.recordRefusal(HOST, 35_000, 35_000, OptionalLong.of(0), true);
        Learned learned = learner.onFirstRefusal(Policy.DEFAULTS, 35_000, store.read(HOST), plateau, 1_000);

        assertEquals(24_600, learned.windowMillis(), "read since the last streak ended, a few windows back");
        double refused = store.read(HOST).pace.refusedRatePerSecond();
        assertEquals(8.0, refused, 0.1, "the rate let through, not the pace refused");
        assertTrue(learned.pacePerSecond() < refused, "the pace restarts under it");
    }

    /**
     * Several workers' first streak is the search for the window's end, ten refusals here: every worker's tries, not
     * what a probe refused will cost. The next cycle counts it as one request's tries (five), not ten: 150 requests a
     * refusal at 8 a second, 94 s rather than 188 s.
     */
    @Test
    void aFirstStreakOfEveryWorkersTriesCountsAsOneRequestsForTheNextCycle() {
        firstBurstRefusedAt(5_500, 6_000, 6_500, 7_000, 7_500, 8_000, 8_500, 9_000, 9_600);
        letThroughAt(10_400);
        PaceSchedule plateau = new PaceSchedule(10.0, 10_400, 60_000, 100_000, 10_000);
        for (long t = 10_500; t < 35_000; t += 125) {
            store.recordAdmitted(HOST, t);
        }
        store.recordRefusal(HOST, 35_000, 35_000, OptionalLong.of(0), true);
        learner.onFirstRefusal(Policy.DEFAULTS, 35_000, store.read(HOST), plateau, 1_000);

        assertEquals(8.0, store.read(HOST).pace.refusedRatePerSecond(), 0.1);
        assertEquals(150 * Policy.DEFAULTS.maxAttempts() * 1000 / 8.0, store.read(HOST).pace.cycleMillis(), 1_500,
                "a cycle of 150 requests for each of a request's tries");
    }

    /**
     * A refusal within the pace's first interval after the first streak ended came on the heels of the request that ended
     * it, not at the pace: it teaches nothing, and the pace the first period taught stands.
     */
    @Test
    void aRefusalBeforeThePacesFirstIntervalTeachesNothing() {
        firstBurstRefusedAt(6_000, 9_600);
        letThroughAt(10_400);
        PaceSchedule taught = store.read(HOST).pace;
        store.recordRefusal(HOST, 10_450, 10_450, OptionalLong.of(0), true);
        assertNull(learner.onFirstRefusal(Policy.DEFAULTS, 10_450, store.read(HOST), taught, 1_000), "10 a second: 100 ms apart");
        assertEquals(taught, store.read(HOST).pace);
    }
}
