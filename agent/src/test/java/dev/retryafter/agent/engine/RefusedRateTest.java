package dev.retryafter.agent.engine;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** How a refusal is read without a window: the pace, or what got through when the pace has been over the limit. */
class RefusedRateTest {

    private static final long WINDOW = 2_000;

    @Test
    void whilePacedTheRateRefusedIsThePace() {
        // The previous streak long ago: what got through since holds the pace's own dip and climb.
        assertEquals(10.3, RefusedRate.at(10.3, 160, 17_000, 18_000, WINDOW), 1e-9);
    }

    @Test
    void aStreakAFewWindowsAfterTheLastReadsWhatGotThroughSinceItEnded() {
        // The limit fell to 4 a second: 20 got through in the 5 s since the last streak ended.
        assertEquals(4.0, RefusedRate.at(10.0, 20, 5_000, 6_000, WINDOW), 1e-9);
    }

    @Test
    void whatGotThroughNeverRaisesThePace() {
        assertEquals(3.0, RefusedRate.at(3.0, 20, 5_000, 6_000, WINDOW), 1e-9);
    }

    @Test
    void unpacedOnlyWhatGotThroughSaysAnything() {
        assertEquals(4.0, RefusedRate.at(0, 20, 5_000, 6_000, WINDOW), 1e-9);
        assertEquals(RefusedRate.UNKNOWN, RefusedRate.at(0, 0, 5_000, 6_000, WINDOW), 1e-9);
    }

    @Test
    void theFirstPeriodIsWhatGotThroughOverTheTimeToRoomAgain() {
        // 20 let through, room again 2.05 s after the first request: a 2 s window of 20, read a little low.
        assertEquals(20 / 2.05, RefusedRate.firstPeriod(20, 1_000, 3_050), 1e-9);
        assertEquals(RefusedRate.UNKNOWN, RefusedRate.firstPeriod(0, 1_000, 3_050), 1e-9, "a late start: the period was someone else's");
        assertEquals(RefusedRate.UNKNOWN, RefusedRate.firstPeriod(20, 3_050, 3_050), 1e-9);
    }
}
