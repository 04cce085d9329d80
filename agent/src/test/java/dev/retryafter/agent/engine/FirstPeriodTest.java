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

    /**
     * A fresh JVM's first request reaches the host well after the agent saw it go (a connection opened, classes loaded:
     * 0.1 to 0.4 s against a loopback portal), and the host's period begins when it arrives. Read from the send, the
     * period was that much longer and the pace that much lower: 20 in 2.45 s, where the portal counted 20 in 2.05 s.
     */
    @Test
    void aColdClientsLateFirstRequestDoesNotLengthenTheFirstPeriod() throws Exception {
        long cold = 400;
        FixedWindowPortal late = new FixedWindowPortal(LIMIT, WINDOW, fixture.clock.millis() + cold + 50);
        late.fetch(fixture, 40, now -> "0", cold);
        HostSnapshot host = fixture.host().snapshot(fixture.clock.millis());
        assertEquals(LIMIT, host.learnedCeiling().getAsInt(), "what got through before the streak");
        assertTrue(host.windowMillis >= WINDOW && host.windowMillis <= WINDOW + 100,
                "the first period as the portal counted it, from the first request's arrival: " + host.windowMillis);
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
