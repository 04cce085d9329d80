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
        pace.onRefusal(40, 0, 0);
        assertEquals(0.8 * 40 / 60, pace.rate(0), 1e-9, "the guide's suggested rate");
    }

    @Test
    void thePaceGrowsBackToTheCeilingThenProbesBeyondIt() {
        AdaptivePace pace = new AdaptivePace(POLICY, 0);
        pace.onRefusal(120, 0, 0); // 2/s; a cycle is max(2 windows, 100 requests at 2/s) = 120 s
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
    void aHostWhoseRefusalsAreCostlyIsProbedLessOften() {
        AdaptivePace cheap = new AdaptivePace(POLICY, 0);
        cheap.onRefusal(120, 0, 1_000);
        AdaptivePace costly = new AdaptivePace(POLICY, 0);
        costly.onRefusal(120, 0, 60_000); // each refusal has cost a minute's wait
        assertEquals(2.0, cheap.rate(120_000), 1e-9, "back at the refused rate after the usual cycle");
        assertTrue(costly.rate(120_000) < 1.9, "still well below it");
        assertEquals(2.0, costly.rate(20 * 60_000), 1e-9, "a refusal costs at most a twentieth of a cycle");
    }

    @Test
    void reTimingForACheaperRefusalKeepsTheRateAndShortensTheCycle() {
        AdaptivePace pace = new AdaptivePace(POLICY, 0);
        pace.onRefusal(120, 0, 60_000);            // a 20-minute cycle
        double before = pace.rate(300_000);
        pace.retime(300_000, 0);                   // refusals are cheap now: the usual 120 s cycle
        assertEquals(before, pace.rate(300_000), 1e-9, "no jump");
        assertEquals(2.0, pace.rate(390_000), 1e-9, "back at the refused rate after the rest of a 120 s cycle");
    }

    @Test
    void reTimingACurveThatIsAlreadyProbingResumesFromThePlateau() {
        AdaptivePace pace = new AdaptivePace(POLICY, 0);
        pace.onRefusal(120, 0, 60_000);            // a 20-minute cycle
        pace.retime(30 * 60_000, 0);               // half a cycle past the plateau, now a 120 s cycle
        assertEquals(2.0, pace.rate(30 * 60_000), 1e-9, "back on the plateau, not 1.5 short cycles beyond it");
    }

    @Test
    void aRefusalWithNoSuccessesInTheWindowFallsFromTheCurrentPace() {
        AdaptivePace pace = new AdaptivePace(POLICY, 0);
        pace.onRefusal(60, 0, 0);
        double before = pace.rate(120_000);
        pace.onRefusal(0, 120_000, 0);
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
