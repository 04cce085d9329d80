package dev.retryafter.it.harness;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The floor as the suite judges it from a server's timestamps: a few milliseconds' leeway, no more. */
class MinSleepFloorTest {

    @Test
    void aGapAFewMillisecondsShortOnTheServersClockKeepsTheFloor() {
        assertTrue(MinSleepFloor.kept(298, 300), "seen in CI where the agent said 'retry in 0.300s'");
        assertTrue(MinSleepFloor.kept(300, 300));
        assertTrue(MinSleepFloor.kept(300 - MinSleepFloor.SERVER_CLOCK_TOLERANCE_MILLIS, 300));
    }

    @Test
    void aRealBreachStillFails() {
        assertFalse(MinSleepFloor.kept(300 - MinSleepFloor.SERVER_CLOCK_TOLERANCE_MILLIS - 1, 300));
        assertFalse(MinSleepFloor.kept(25, 200), "the Redis store's re-send 25 ms after a refusal");
        assertFalse(MinSleepFloor.kept(175, 200), "25 ms short of a 200 ms floor");
        assertFalse(MinSleepFloor.kept(-1, 300), "no gap measured is no floor shown");
        assertThrows(AssertionError.class, () -> MinSleepFloor.assertKept(175, 200, () -> "breach"));
    }
}
