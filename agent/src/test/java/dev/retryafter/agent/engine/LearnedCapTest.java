package dev.retryafter.agent.engine;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The concurrency a host takes, learned as Netflix's AIMD limit learns it. */
class LearnedCapTest {

    @Test
    void aRefusalWithOthersInFlightLowersTheCapBelowThem() {
        LearnedCap cap = new LearnedCap(8);
        assertEquals(2, cap.onRefusal(3), "three in flight, this one among them: two");
        assertEquals(2, cap.cap());
        assertEquals(0, cap.onRefusal(4), "never raised by a refusal");
        assertEquals(1, cap.onRefusal(2));
        assertEquals(0, cap.onRefusal(1), "one alone says nothing about concurrency: never under one");
    }

    @Test
    void aRunOfAdmissionsRaisesItByOneUpToThePolicysCap() {
        LearnedCap cap = new LearnedCap(3);
        cap.onRefusal(2);
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
        learned.onRefusal(3);
        learned.usePolicyCap(8, 16);
        assertEquals(2, learned.cap(), "what was learned stays");
        learned.usePolicyCap(16, 1);
        assertEquals(1, learned.cap());
    }
}
