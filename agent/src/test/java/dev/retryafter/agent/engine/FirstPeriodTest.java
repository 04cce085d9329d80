package dev.retryafter.agent.engine;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With no policy, a host's window and rate are learned from its first streak: a fixed window of 20
 * per 2 s that answers {@code Retry-After: 0}, one request at a time, 50 ms each.
 */
class FirstPeriodTest {

    private static final int LIMIT = 20;
    private static final long WINDOW = 2_000;

    private final EngineFixture fixture = new EngineFixture(Policy.DEFAULTS);
    private final FixedWindowPortal portal = new FixedWindowPortal(LIMIT, WINDOW, fixture.clock.millis());

    @Test
    void theFirstStreaksEndTeachesTheWindowAndTheRateWithNoPolicy() throws Exception {
        fetch(40);
        HostSnapshot host = fixture.host().snapshot(fixture.clock.millis());
        assertEquals(LIMIT, host.learnedCeiling().getAsInt(), "what got through before the streak");
        assertTrue(host.windowMillis >= WINDOW && host.windowMillis <= WINDOW + 1_000,
                "the first period is the window, read from the streak's end: " + host.windowMillis);
        assertTrue(host.pacePerMinute() > 0.8 * 600 && host.pacePerMinute() <= 600,
                "paced near 10 a second, not 20 a minute as a 60 s window would read it: " + host.pacePerMinute());
    }

    @Test
    void theFirstStreakLooksForTheWindowsEndInWaitsNoLongerThanHalfItsAge() throws Exception {
        fetch(25);
        fixture.listener.decisions.forEach(d -> assertTrue(d.waitBeforeNextRequest().millis() <= Math.max(1_000, WINDOW),
                "no wait the length of a 60 s window the policy never named: " + d));
    }

    private void fetch(int records) throws Exception {
        portal.fetch(fixture, records, now -> "0");
    }
}
