package dev.retryafter.agent.engine.learn;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** How a refusal is read without a window: the pace, or what got through when that is less. */
class RefusedRateTest {

    private static final long WINDOW = 2_000;

    @Test
    void whilePacedTheRateRefusedIsThePaceWhenTheHostLetThroughAsMuch() {
        // The last three windows before the refusal: 63 let through in 6 s, as fast as the pace.
        assertEquals(10.3, RefusedRate.at(10.3, 63, 6_000, 0), 1e-9);
    }

    @Test
    void aPaceThatProbedPastTheLimitRestartsFromWhatTheHostLetThrough() {
        // A fixed window of 20 per 2 s admits 60 in 6 s however fast it is sent to: the limit, not the probe.
        assertEquals(10.0, RefusedRate.at(10.6, 60, 6_000, 0), 1e-9);
        // A span that is not a whole number of windows reads a little under; the pace it began with was let through.
        assertEquals(9.9, RefusedRate.at(10.6, 58, 6_000, 9.9), 1e-9);
    }

    @Test
    void aSpanOverWhichThePaceRoseHalfAgainIsReadOverItsLastTwoWindows() {
        assertEquals(2 * WINDOW, RefusedRate.lastWindowIfClimbed(6 * WINDOW, WINDOW, 1.2, 1.9, Long.MAX_VALUE));
        assertEquals(6 * WINDOW, RefusedRate.lastWindowIfClimbed(6 * WINDOW, WINDOW, 1.4, 1.9, Long.MAX_VALUE), "a rise of a third");
    }

    @Test
    void aClimbOutgrowingItsWindowIsReadNearItsTop() {
        // The pace climbed linearly from 1 to 11 a second over 100 s: within 0.7 of its height (7.7) for the last 33 s.
        long now = 1_000_000;
        java.util.function.LongToDoubleFunction climb = t -> 1 + 10 * (t - (now - 100_000)) / 100_000.0;
        assertEquals(33_000, RefusedRate.nearTopMillis(climb, now, 100_000), 100);
        assertEquals(10_000, RefusedRate.lastWindowIfClimbed(100_000, 10_000, 1, 11, 33_000), "the last window, where it is shorter");
        assertEquals(33_000, RefusedRate.lastWindowIfClimbed(100_000, 65_000, 1, 11, 33_000), "a window too long: the top");
        // A steep climb: 30 requests at the height, at least.
        java.util.function.LongToDoubleFunction steep = t -> t >= now - 500 ? 10 : 1;
        assertEquals(3_000, RefusedRate.nearTopMillis(steep, now, 100_000));
    }

    @Test
    void theSpanIsSinceTheLastStreakWhenRecentElseTheLastFewWindows() {
        assertEquals(5_000, RefusedRate.spanMillis(5_000, 6_000, WINDOW), "a streak three windows back: since it ended");
        assertEquals(3 * WINDOW, RefusedRate.spanMillis(17_000, 18_000, WINDOW), "long ago: the last three windows, none of the dip");
    }

    @Test
    void aSpanOverWhichThePaceAtLeastDoubledIsReadOverItsLastWindow() {
        // A first reading of 100 in 65 s (a 10 s window whose end the first streak missed), the probe climbing from 1.5
        // to 10.5 a second over the 163 s since: over all of it, 3.5 a second got through; over the last window, the limit.
        assertEquals(WINDOW, RefusedRate.lastWindowIfClimbed(163_000, WINDOW, 1.5, 10.5, Long.MAX_VALUE));
        assertEquals(2 * WINDOW, RefusedRate.lastWindowIfClimbed(163_000, WINDOW, 6.0, 10.5, Long.MAX_VALUE), "a rise short of doubling: two windows");
        assertEquals(163_000, RefusedRate.lastWindowIfClimbed(163_000, WINDOW, 9.0, 10.5, Long.MAX_VALUE), "a climb back to the plateau: the whole span");
        assertEquals(163_000, RefusedRate.lastWindowIfClimbed(163_000, WINDOW, 0, 10.5, Long.MAX_VALUE), "unpaced at the start: nothing climbed");
        assertEquals(1_500, RefusedRate.lastWindowIfClimbed(1_500, WINDOW, 1.5, 10.5, Long.MAX_VALUE), "never longer than the span");
    }

    @Test
    void aStreakAFewWindowsAfterTheLastReadsWhatGotThroughSinceItEnded() {
        // The limit fell to 4 a second: 20 got through in the 5 s since the last streak ended.
        assertEquals(4.0, RefusedRate.at(10.0, 20, 5_000, 0), 1e-9);
    }

    @Test
    void whatGotThroughNeverRaisesThePace() {
        assertEquals(3.0, RefusedRate.at(3.0, 20, 5_000, 0), 1e-9);
    }

    @Test
    void unpacedOnlyWhatGotThroughSaysAnything() {
        assertEquals(4.0, RefusedRate.at(0, 20, 5_000, 0), 1e-9);
        assertEquals(RefusedRate.UNKNOWN, RefusedRate.at(0, 0, 5_000, 0), 1e-9);
    }

    @Test
    void theFirstPeriodIsWhatGotThroughOverTheTimeToRoomAgain() {
        // 20 let through, room again 2.05 s after the first request: a 2 s window of 20, read a little low.
        assertEquals(20 / 2.05, RefusedRate.firstPeriod(20, 1_000, 3_050), 1e-9);
        assertEquals(RefusedRate.UNKNOWN, RefusedRate.firstPeriod(0, 1_000, 3_050), 1e-9, "a late start: the period was someone else's");
        assertEquals(RefusedRate.UNKNOWN, RefusedRate.firstPeriod(20, 3_050, 3_050), 1e-9);
    }
}
