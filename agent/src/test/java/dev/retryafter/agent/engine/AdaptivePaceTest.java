package dev.retryafter.agent.engine;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AdaptivePaceTest {

    private static final Policy POLICY = Policy.DEFAULTS; // 60 s window, headroom 0.8

    @Test
    void nothingLearnedMeansNoPacing() {
        assertEquals(0, new AdaptivePace(POLICY, 0).rate(1_000_000));
    }

    @Test
    void aRefusalDropsThePaceToHeadroomOfTheCeiling() {
        AdaptivePace pace = new AdaptivePace(POLICY, 0);
        pace.onRefusal(40, 0);
        assertEquals(0.8 * 40 / 60, pace.rate(0), 1e-9, "the guide's suggested rate");
    }

    @Test
    void thePaceGrowsBackToTheCeilingThenProbesBeyondIt() {
        AdaptivePace pace = new AdaptivePace(POLICY, 0);
        pace.onRefusal(120, 0); // 2/s; a cycle is max(2 windows, 100 requests at 2/s) = 120 s
        double ceiling = 2.0;
        assertEquals(ceiling, pace.rate(120_000), 1e-9, "back at the refused rate after one cycle");
        assertTrue(pace.rate(60_000) > 0.95 * ceiling, "most of the cycle is spent close to it");
        assertTrue(pace.rate(240_000) > 1.15 * ceiling, "then it probes beyond");
        double last = 0;
        for (long t = 0; t <= 600_000; t += 1_000) {
            double r = pace.rate(t);
            assertTrue(r >= last, "never falls without a refusal");
            last = r;
        }
        assertTrue(last < 7 * ceiling, "the probe is bounded");
    }

    @Test
    void aRefusalWithNoSuccessesInTheWindowFallsFromTheCurrentPace() {
        AdaptivePace pace = new AdaptivePace(POLICY, 0);
        pace.onRefusal(60, 0);
        double before = pace.rate(120_000);
        pace.onRefusal(0, 120_000);
        assertEquals(0.8 * before, pace.rate(120_000), 1e-9);
    }

    @Test
    void aConfiguredRateStartsOnThePlateauAndProbesIfNeverRefused() {
        Policy policy = Policy.builder().startRatePerSecond(0.5).build();
        AdaptivePace pace = new AdaptivePace(policy, 1_000);
        assertEquals(0.5, pace.rate(1_000), 1e-9);
        assertTrue(pace.rate(1_000 + 60 * 60_000) > 0.6, "a documented limit may be too low");
    }
}
