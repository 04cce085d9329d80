package dev.retryafter.agent.engine.learn;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The concurrency a host takes, learned as Netflix's AIMD limit learns it. */
class LearnedCapTest {

    @Test
    void aRefusalWithOthersInFlightLowersTheCapBelowThem() {
        LearnedCap cap = new LearnedCap(8);
        assertEquals(2, cap.onRefusal(3, 8), "three in flight, this one among them: two");
        assertEquals(2, cap.cap());
        assertEquals(0, cap.onRefusal(4, 8), "never raised by a refusal");
        assertEquals(1, cap.onRefusal(2, 8));
        assertEquals(0, cap.onRefusal(1, 8), "one alone says nothing about concurrency: never under one");
    }

    @Test
    void aRunOfAdmissionsRaisesItByOneUpToThePolicysCap() {
        LearnedCap cap = new LearnedCap(3);
        cap.onRefusal(2, 3);
        for (int i = 1; i < LearnedCap.ADMISSIONS_PER_RISE; i++) {
            assertEquals(0, cap.onAdmitted(3));
        }
        assertEquals(2, cap.onAdmitted(3), "one more after a hundred");
        for (int i = 0; i < 10 * LearnedCap.ADMISSIONS_PER_RISE; i++) {
            cap.onAdmitted(3);
        }
        assertEquals(3, cap.cap(), "never over the policy's cap");
    }

    @Test
    void aReloadMovesACapNothingLoweredAndKeepsALearnedOneUnderTheNew() {
        LearnedCap untouched = new LearnedCap(1);
        untouched.usePolicyCap(1, 4);
        assertEquals(4, untouched.cap());
        LearnedCap learned = new LearnedCap(8);
        learned.onRefusal(3, 8);
        learned.usePolicyCap(8, 16);
        assertEquals(2, learned.cap(), "what was learned stays");
        learned.usePolicyCap(16, 1);
        assertEquals(1, learned.cap());
    }

    @Test
    void aHostNeverRefusedStartsAtOneInFlightAndDoublesByAdmissions() {
        LearnedCap cap = new LearnedCap(8, true);
        assertEquals(1, cap.cap());
        for (int i = 1; i < LearnedCap.SLOW_START_ADMISSIONS; i++) {
            assertEquals(0, cap.onAdmitted(8));
        }
        assertEquals(2, cap.onAdmitted(8));
        admit(cap, LearnedCap.SLOW_START_ADMISSIONS - 1);
        assertEquals(4, cap.onAdmitted(8));
        admit(cap, LearnedCap.SLOW_START_ADMISSIONS - 1);
        assertEquals(8, cap.onAdmitted(8), "the policy's cap after 60 admissions");
        assertEquals(0, cap.onRefusal(1, 8));
        assertEquals(8, cap.cap());
    }

    @Test
    void aRefusalAloneDoesNotEndTheSlowStartOneWithOthersInFlightDoes() {
        LearnedCap alone = new LearnedCap(8, true);
        assertEquals(0, alone.onRefusal(1, 8), "nothing about concurrency");
        admit(alone, LearnedCap.SLOW_START_ADMISSIONS);
        assertEquals(2, alone.cap(), "still doubling");
        LearnedCap crowded = new LearnedCap(8, true);
        admit(crowded, 2 * LearnedCap.SLOW_START_ADMISSIONS);
        assertEquals(4, crowded.cap());
        assertEquals(2, crowded.onRefusal(3, 8));
        admit(crowded, LearnedCap.ADMISSIONS_PER_RISE - 1);
        assertEquals(2, crowded.cap(), "over: one more per hundred from here, as ever");
        assertEquals(3, crowded.onAdmitted(8));
    }

    @Test
    void aRiseRefusedAgainIsTriedAfterTwiceAsManyAdmissions() {
        LearnedCap cap = new LearnedCap(8);
        cap.onRefusal(3, 8);
        admit(cap, LearnedCap.ADMISSIONS_PER_RISE);
        assertEquals(3, cap.cap());
        assertEquals(2, cap.onRefusal(3, 8), "the rise to three refused");
        admit(cap, 2 * LearnedCap.ADMISSIONS_PER_RISE - 1);
        assertEquals(2, cap.cap());
        assertEquals(3, cap.onAdmitted(8), "after twice as many");
        admit(cap, 2 * LearnedCap.ADMISSIONS_PER_RISE);
        assertEquals(4, cap.cap(), "three held: four after as many again");
        admit(cap, LearnedCap.ADMISSIONS_PER_RISE);
        assertEquals(5, cap.cap(), "past every rise refused: a hundred a rise again");
    }

    private static void admit(LearnedCap cap, int times) {
        for (int i = 0; i < times; i++) {
            cap.onAdmitted(8);
        }
    }
}
