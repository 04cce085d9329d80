package dev.retryafter.agent.engine.learn;

import dev.retryafter.agent.engine.Policy;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AdaptivePaceTest {

    private static final Policy POLICY = Policy.DEFAULTS; // headroom 0.9
    /** 2 requests a second: a cycle of 150 requests at it is 75 s. */
    private static final double RATE = 2.0;
    private static final long CYCLE = 75_000;

    @Test
    void nothingLearnedMeansNoPacing() {
        assertEquals(0, new AdaptivePace(POLICY, 0).rate(1_000_000));
    }

    @Test
    void aRefusalDropsThePaceToHeadroomOfTheRateRefused() {
        AdaptivePace pace = new AdaptivePace(POLICY, 0);
        pace.onRefusal(RATE, 0, 0, 1);
        assertEquals(0.9 * RATE, pace.rate(0), 1e-9);
    }

    @Test
    void thePaceGrowsBackToTheRateRefusedThenProbesBeyondItWithoutEnd() {
        AdaptivePace pace = new AdaptivePace(POLICY, 0);
        pace.onRefusal(RATE, 0, 0, 1);
        assertEquals(RATE, pace.rate(CYCLE), 1e-9, "back at the refused rate after one cycle of 150 requests");
        assertTrue(pace.rate(CYCLE / 2) > 0.98 * RATE, "most of the cycle is spent close to it");
        assertEquals(1.4 * RATE, pace.rate(2 * CYCLE), 1e-9, "a cycle past it, 1.4 times");
        assertEquals(2.8 * RATE, pace.rate(2 * CYCLE + CYCLE / 4), 1e-9, "then it doubles every quarter cycle");
        double last = 0;
        for (long t = 0; t <= 4 * CYCLE; t += 1_000) {
            double r = pace.rate(t);
            assertTrue(r >= last, "never falls without a refusal");
            assertTrue(last == 0 || r <= 2.01 * last, "never more than doubles in a second: bounded per step");
            last = r;
        }
        assertTrue(last > 50 * RATE, "a limit read far too low is found again: the probe has no ceiling");
        assertTrue(Double.isFinite(pace.rate(Long.MAX_VALUE / 2)), "and stays finite");
    }

    @Test
    void aHostWhoseStreaksRunLongIsProbedLessOften() {
        AdaptivePace short_ = new AdaptivePace(POLICY, 0);
        short_.onRefusal(RATE, 0, 0, 1);
        AdaptivePace long_ = new AdaptivePace(POLICY, 0);
        long_.onRefusal(RATE, 0, 0, 4); // a fixed window that refused four times before it reset
        assertEquals(RATE, short_.rate(CYCLE), 1e-9);
        assertTrue(long_.rate(CYCLE) < 0.999 * RATE, "still under it");
        assertEquals(RATE, long_.rate(4 * CYCLE), 1e-9, "four times the requests before the probe");
    }

    @Test
    void aHostWhoseRefusalsAreCostlyIsProbedLessOften() {
        AdaptivePace cheap = new AdaptivePace(POLICY, 0);
        cheap.onRefusal(RATE, 0, 1_000, 1);
        AdaptivePace costly = new AdaptivePace(POLICY, 0);
        costly.onRefusal(RATE, 0, 60_000, 1); // each refusal has cost a minute's wait
        assertEquals(RATE, cheap.rate(CYCLE), 1e-9, "back at the refused rate after the usual cycle");
        assertTrue(costly.rate(CYCLE) < 0.999 * RATE, "still below it");
        assertEquals(RATE, costly.rate(20 * 60_000), 1e-9, "a refusal costs at most a twentieth of a cycle");
    }

    @Test
    void reTimingForACheaperRefusalKeepsTheRateAndShortensTheCycle() {
        AdaptivePace pace = new AdaptivePace(POLICY, 0);
        pace.onRefusal(RATE, 0, 60_000, 1);       // a 20-minute cycle
        double before = pace.rate(300_000);
        pace.retime(300_000, 0);                   // refusals are cheap now: the usual 75 s cycle
        assertEquals(before, pace.rate(300_000), 1e-9, "no jump");
        assertEquals(RATE, pace.rate(300_000 + CYCLE * 3 / 4), 1e-9, "back at the refused rate after the rest of a 75 s cycle");
    }

    @Test
    void reTimingACurveThatIsAlreadyProbingResumesFromThePlateau() {
        AdaptivePace pace = new AdaptivePace(POLICY, 0);
        pace.onRefusal(RATE, 0, 60_000, 1);       // a 20-minute cycle
        pace.retime(30 * 60_000, 0);               // half a cycle past the plateau, now a 75 s cycle
        assertEquals(RATE, pace.rate(30 * 60_000), 1e-9, "back on the plateau, not many short cycles beyond it");
    }

    @Test
    void aRefusalThatNamesNoRateFallsFromTheCurrentPace() {
        AdaptivePace pace = new AdaptivePace(POLICY, 0);
        pace.onRefusal(1.0, 0, 0, 1);
        double before = pace.rate(120_000);
        pace.onRefusal(0, 120_000, 0, 1);
        assertEquals(0.9 * before, pace.rate(120_000), 1e-9);
    }

    @Test
    void aRateKnownToBeALowerBoundStartsOnThePlateauAndProbesAtOnce() {
        AdaptivePace pace = new AdaptivePace(POLICY, 0);
        pace.fromPlateau(RATE, 1_000);
        assertEquals(RATE, pace.rate(1_000), 1e-9);
        assertTrue(pace.rate(1_000 + CYCLE / 2) > 1.04 * RATE, "probing already");
    }

    @Test
    void aConfiguredRateStartsOnThePlateauAndProbesIfNeverRefused() {
        Policy policy = Policy.builder().startRatePerSecond(0.5).build();
        AdaptivePace pace = new AdaptivePace(policy, 1_000);
        assertEquals(0.5, pace.rate(1_000), 1e-9);
        assertTrue(pace.rate(1_000 + 60 * 60_000) > 0.6, "a documented limit may be too low");
    }

    /** 4 requests a second on a 2 s window: a cycle of 150 requests is 37.5 s, so the shortest, a minute. */
    private static final double FAST = 4.0;
    private static final long MINUTE = 60_000;
    private static final long PLATEAU = 50_000;

    @Test
    void aRefusedProbeThatConfirmsThePlateauGoesBackToItWithoutTheDip() {
        AdaptivePace pace = new AdaptivePace(POLICY, 0);
        pace.onRefusal(FAST, 0, 1_000, 1);
        long probeRefused = MINUTE + 20_000;
        assertTrue(pace.rate(probeRefused) > FAST, "probing past the plateau");
        pace.onRefusal(1.02 * FAST, probeRefused, 1_000, 1); // the same limit again
        assertEquals(1.02 * FAST, pace.rate(probeRefused), 1e-9, "straight back to the plateau, no dip below it");
        assertEquals(1.02 * FAST, pace.rate(probeRefused + PLATEAU), 1e-9, "and on it for 50 s");
        assertEquals(1.02 * FAST * Math.pow(2, 0.2), pace.rate(probeRefused + PLATEAU + 3_000), 1e-9, "then the probe doubles every 15 s");
        long moved = probeRefused + PLATEAU + (long) (15_000 * Math.log(1.25) / Math.log(2));
        assertEquals(1.25 * 1.02 * FAST, pace.rate(moved), 0.01, "to a quarter past the plateau, where a limit that held refused");
        assertEquals(2.5 * 1.02 * FAST, pace.rate(moved + 5_000), 0.01, "then every 5 s: the limit moved");
        PaceSchedule schedule = pace.schedule();
        assertEquals(PLATEAU, schedule.probeAfterMillis());
        assertEquals(pace.rate(probeRefused + PLATEAU + 7_000), new AdaptivePace(POLICY, schedule).rate(probeRefused + PLATEAU + 7_000), 1e-9,
                "the schedule carries the curve");
        pace.onRefusal(1.02 * FAST, probeRefused + PLATEAU + 5_000, 1_000, 1);
        assertEquals(1.02 * FAST, pace.rate(probeRefused + PLATEAU + 5_000), 1e-9, "a plateau confirmed again stays cheap");
    }

    @Test
    void aRefusalOnThePlateauOrAtAnotherRateDipsAsBefore() {
        AdaptivePace onPlateau = new AdaptivePace(POLICY, 0);
        onPlateau.onRefusal(FAST, 0, 1_000, 1);
        onPlateau.onRefusal(FAST, 30_000, 1_000, 1); // refused before the probe: the reading was high
        assertEquals(0.9 * FAST, onPlateau.rate(30_000), 1e-9);

        AdaptivePace fell = new AdaptivePace(POLICY, 0);
        fell.onRefusal(FAST, 0, 1_000, 1);
        fell.onRefusal(0.5 * FAST, MINUTE + 20_000, 1_000, 1); // the limit fell
        assertEquals(0.45 * FAST, fell.rate(MINUTE + 20_000), 1e-9);

        AdaptivePace rose = new AdaptivePace(POLICY, 0);
        rose.onRefusal(FAST, 0, 1_000, 1);
        rose.onRefusal(1.3 * FAST, 2 * MINUTE, 1_000, 1); // the probe found a higher limit
        assertEquals(0.9 * 1.3 * FAST, rose.rate(2 * MINUTE), 1e-9);
    }

    @Test
    void aHostWhoseCycleIsLongerThanTheShortestKeepsTheDip() {
        AdaptivePace pace = new AdaptivePace(POLICY, 0);
        pace.onRefusal(RATE, 0, 1_000, 1); // a 75 s cycle: a probe refused there costs more than a second
        pace.onRefusal(RATE, CYCLE + 30_000, 1_000, 1);
        assertEquals(0.9 * RATE, pace.rate(CYCLE + 30_000), 1e-9);
    }

    @Test
    void reTimingAPlateauResumesTheCubicCurveFromIt() {
        AdaptivePace pace = new AdaptivePace(POLICY, 0);
        pace.onRefusal(FAST, 0, 1_000, 1);
        pace.onRefusal(FAST, MINUTE + 20_000, 1_000, 1);
        pace.retime(MINUTE + 30_000, 0);
        assertEquals(FAST, pace.rate(MINUTE + 30_000), 1e-9, "no jump");
        assertEquals(0, pace.schedule().probeAfterMillis());
        assertEquals(1.4 * FAST, pace.rate(2 * MINUTE + 30_000), 1e-9, "the cubic curve's probe, a cycle on");
    }
}
