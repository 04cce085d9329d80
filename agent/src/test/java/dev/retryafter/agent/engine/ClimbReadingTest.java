package dev.retryafter.agent.engine;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A 10 s window of 100 that answers {@code Retry-After: 0}, one request at a time, 50 ms each, no policy: the first
 * streak cannot find the window's end within a request's tries (they wait for the default window's instead), so the
 * first reading is 100 in 65 s, a lower bound, and the probe climbs from it. The refusal at the top of the climb is read
 * over the last window, not over the climb ({@code RefusedRate.lastWindowIfClimbed}).
 */
class ClimbReadingTest {

    private final EngineFixture fixture = new EngineFixture(Policy.DEFAULTS);
    private final FixedWindowPortal portal = new FixedWindowPortal(100, 10_000, fixture.clock.millis());

    @Test
    void theRefusalAtTheTopOfAClimbIsReadOverTheLastWindowNotTheClimb() throws Exception {
        portal.fetch(fixture, 1_500, now -> "0");
        double perMinute = fixture.host().snapshot(fixture.clock.millis()).pacePerMinute();
        // Read over the climb, the second reading was 3.5 a second (575 in 163 s), and after 1,500 records the pace was
        // 259 a minute; read over the last window, 465.
        assertTrue(perMinute >= 400, "paced at two thirds of the limit of 600 a minute or more after 1,500 records: " + perMinute);
    }
}
