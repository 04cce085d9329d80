package dev.retryafter.agent.engine.learn;

import dev.retryafter.agent.engine.Category;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostCharacteriserTest {

    private static final long NONE = ObservationWindow.NO_HEADER;

    /** Streaks as (header ms, last refused ms, recovered by ms), oldest first. */
    private static Characterisation of(long[]... streaks) {
        return HostCharacteriser.characterise(window(streaks));
    }

    private static ObservationWindow window(long[]... streaks) {
        ObservationWindow window = new ObservationWindow();
        for (long[] s : streaks) {
            window.add(s[0], s[1], s[2], false);
        }
        return window;
    }

    private static long[] s(long header, long lastRefused, long recoveredBy) {
        return new long[] {header, lastRefused, recoveredBy};
    }

    @Test
    void nothingObservedIsUnknown() {
        assertEquals(Category.UNKNOWN, HostCharacteriser.characterise(new ObservationWindow()).category());
    }

    @Test
    void noHeaderEverIsAbsent() {
        assertEquals(Category.ABSENT, of(s(NONE, 0, 8_000), s(NONE, 2_000, 9_000)).category());
    }

    @Test
    void zeroEveryTimeIsAlwaysZero() {
        assertEquals(Category.ALWAYS_ZERO, of(s(0, 0, 1_000), s(0, 1_000, 20_000)).category());
    }

    @Test
    void oneLargeValueThatRecoversFarSoonerIsConstantOverstated() {
        Characterisation c = of(s(3_600_000, 0, 2_000), s(3_600_000, 0, 5_000));
        assertEquals(Category.CONSTANT_OVERSTATED, c.category());
        assertTrue(c.medianRatio().getAsDouble() < 0.1);
    }

    @Test
    void aHeaderThatRecoveryAgreesWithIsTruthful() {
        // Recovered by the first request sent after the header's time, even when the engine sent it later.
        Characterisation c = of(s(20_000, 0, 20_050), s(5_000, 0, 12_000), s(40_000, 0, 40_100));
        assertEquals(Category.TRUTHFUL, c.category());
        assertEquals(1.0, c.medianRatio().getAsDouble(), 1e-9);
    }

    @Test
    void aHeaderWaitedOutEveryTimeIsBoundedByThePeriodAndMustBeConsistent() {
        // A random 0-60 s header on a 10 s window, each waited out: every streak alone reads 1.
        ObservationWindow window = new ObservationWindow();
        window.add(14_000, 0, 14_000, false);
        window.add(24_000, 0, 24_000, false);
        window.add(36_000, 0, 36_000, false);
        assertEquals(Category.TRUTHFUL, HostCharacteriser.characterise(window).category(), "nothing contradicts it, unbounded");
        Characterisation bounded = HostCharacteriser.characterise(window, 16_550);
        assertEquals(Category.UNRELIABLE, bounded.category(), "ratios 1, 0.69 and 0.46: in the band, not consistent");
        assertEquals(16_550 / 24_000.0, bounded.medianRatio().getAsDouble(), 1e-9);
    }

    @Test
    void aHeaderCaughtNamingTwoMomentsIsNeverTruthful() {
        // Two refusals in flight at once were told 14 s and 24 s: each streak waited out reads 1, and the header lied.
        Characterisation c = HostCharacteriser.characterise(window(s(14_000, 0, 14_000), s(12_000, 0, 12_000)), 0, true);
        assertEquals(Category.UNRELIABLE, c.category());
        assertEquals(1.0, c.medianRatio().getAsDouble(), 1e-9);
        assertEquals(Category.TRUTHFUL, of(s(14_000, 0, 14_000), s(12_000, 0, 12_000)).category(), "its ratios alone say truthful");
    }

    @Test
    void truthfulHeadersWithinThePeriodStayTruthful() {
        ObservationWindow window = new ObservationWindow();
        window.add(9_000, 0, 9_000, false);
        window.add(3_000, 0, 12_000, false); // sent later by the pace
        window.add(7_000, 0, 7_000, false);
        assertEquals(Category.TRUTHFUL, HostCharacteriser.characterise(window, 10_000).category());
    }

    @Test
    void aStreakStillRefusedPastThePeriodIsNotCutToIt() {
        ObservationWindow window = new ObservationWindow();
        window.add(30_000, 25_000, 30_000, false); // refused 25 s in: the real wait was longer than a period of 10 s
        window.add(30_000, 25_000, 30_000, false);
        assertEquals(Category.TRUTHFUL, HostCharacteriser.characterise(window, 10_000).category());
    }

    @Test
    void consistencyForgivesTheNewestStreakAloneFromFourIfItReadsLow() {
        assertTrue(HostCharacteriser.consistent(new double[] {0.6, 1.0, 1.1}, 3));
        assertTrue(!HostCharacteriser.consistent(new double[] {0.46, 0.69, 1.0}, 3));
        assertTrue(HostCharacteriser.consistent(new double[] {0.1, 0.9, 1.0, 1.0}, 4), "the newest drifts to a constant");
        assertTrue(!HostCharacteriser.consistent(new double[] {30, 0.9, 1.0, 1.0}, 4), "a header too short is never forgiven");
        assertTrue(!HostCharacteriser.consistent(new double[] {1.0, 0.1, 1.0, 1.0}, 4), "an older odd one is evidence");
        assertTrue(!HostCharacteriser.consistent(new double[] {0.1, 0.9, 1.0, 1.0}, 3), "three streaks forgive nothing");
    }

    @Test
    void headersContradictedBothWaysAreUnreliable() {
        Characterisation c = of(
                s(1_000, 16_000, 30_000),   // said 1 s, still refused at 16 s
                s(40_000, 0, 2_000),        // said 40 s, let through at 2 s
                s(2_000, 8_000, 20_000),
                s(30_000, 0, 1_000),
                s(3_000, 10_000, 30_000));
        assertEquals(Category.UNRELIABLE, c.category());
    }

    @Test
    void aHostThatDriftsIntoAConstantIsReCharacterisedWithinTwoStreaks() {
        ObservationWindow window = new ObservationWindow();
        for (int i = 0; i < ObservationWindow.CAPACITY; i++) {
            window.add(10_000 + i * 1_000, 0, 10_000 + i * 1_000, false);
        }
        assertEquals(Category.TRUTHFUL, HostCharacteriser.characterise(window).category());
        window.add(3_600_000, 0, 300_000, false);
        assertEquals(Category.TRUTHFUL, HostCharacteriser.characterise(window).category(), "one streak is not enough");
        window.add(3_600_000, 0, 300_000, false);
        assertEquals(Category.CONSTANT_OVERSTATED, HostCharacteriser.characterise(window).category());
    }

    @Test
    void theWindowForgetsOldStreaks() {
        ObservationWindow window = new ObservationWindow();
        window.add(NONE, 0, 5_000, false);
        for (int i = 0; i < ObservationWindow.CAPACITY; i++) {
            window.add(0, 0, 5_000, false);
        }
        assertEquals(Category.ALWAYS_ZERO, HostCharacteriser.characterise(window).category());
    }

    @Test
    void aMedianThatMovesByMoreThanTwiceIsNoticed() {
        Characterisation before = new Characterisation(Category.TRUTHFUL, 1.0);
        assertTrue(new Characterisation(Category.TRUTHFUL, 2.1).medianMovedFarFrom(before));
        assertTrue(new Characterisation(Category.TRUTHFUL, 0.45).medianMovedFarFrom(before));
        assertTrue(!new Characterisation(Category.TRUTHFUL, 1.9).medianMovedFarFrom(before));
    }
}
