package dev.retryafter.agent.engine.learn;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LearnedLimitTest {

    /** The guide's test, as written (seconds become milliseconds). */
    @Test
    void learnedCeilingTracksObservedRefusals() {
        LearnedLimit limit = new LearnedLimit(60_000);
        long t0 = 1_000_000;
        for (int i = 0; i < 40; i++) {
            limit.record(t0 + i * 1000L, true);
        }
        limit.record(t0 + 41_000, false); // the 41st request trips it
        assertEquals(40, limit.observedCeiling(t0 + 45_000));
        assertEquals(0.8 * 40 / 60, limit.suggestedRate(t0 + 45_000, 0.8), 1e-12);
    }

    @Test
    void nothingIsLearnedWithoutARefusalInTheWindow() {
        LearnedLimit limit = new LearnedLimit(60_000);
        limit.record(0, true);
        assertEquals(LearnedLimit.NONE, limit.observedCeiling(10_000));
        assertTrue(Double.isNaN(limit.suggestedRate(10_000, 0.8)));
        limit.record(1_000, false);
        assertEquals(LearnedLimit.NONE, limit.observedCeiling(70_000), "the refusal has left the window");
    }

    @Test
    void aCeilingCountsFromThePreviousRefusalNotTheFirstInTheWindow() {
        LearnedLimit limit = new LearnedLimit(60_000);
        for (int i = 0; i < 4; i++) {
            limit.record(i * 1000L, true);
        }
        limit.record(5_000, false);           // an earlier streak
        for (int i = 0; i < 40; i++) {
            limit.record(10_000 + i * 1000L, true);
        }
        assertEquals(4, limit.observedCeiling(55_000), "the guide's reading goes stale");
        assertEquals(40, limit.ceilingBefore(55_000));
    }

    @Test
    void aSuccessInTheSameMillisecondAsTheRefusalCounts() {
        LearnedLimit limit = new LearnedLimit(60_000);
        for (int i = 0; i < 12; i++) {
            limit.record(5_000, true);
        }
        assertEquals(12, limit.ceilingBefore(5_000));
    }

    @Test
    void historyIsBounded() {
        LearnedLimit limit = new LearnedLimit(60_000, 16);
        for (int i = 0; i < 1000; i++) {
            limit.record(i, true);
        }
        limit.record(2000, false);
        assertEquals(16, limit.ceilingBefore(2000));
    }
}
