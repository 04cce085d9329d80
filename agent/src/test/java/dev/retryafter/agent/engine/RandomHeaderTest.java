package dev.retryafter.agent.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fixed window of 50 per 10 s whose {@code Retry-After} is drawn at random from 0-60 s (here the draws of the limiter
 * benchmark's first seed, in order), one request at a time, 50 ms each, no policy. Every header is waited out, as the
 * guide's max(header, backoff) asks of a header not proven, so no streak alone can contradict one.
 */
class RandomHeaderTest {

    private static final int LIMIT = 50;
    private static final long WINDOW = 10_000;
    private static final int[] HEADERS = {14, 24, 36, 38, 46, 10, 27, 16, 51, 8, 36, 9};

    private final EngineFixture fixture = new EngineFixture(Policy.DEFAULTS);
    private final FixedWindowPortal portal = new FixedWindowPortal(LIMIT, WINDOW, fixture.clock.millis());
    private final List<Long> refusals = new ArrayList<>();

    @Test
    void aRandomHeaderIsNotTruthfulOnceItNamesWaitsBeyondThePeriodAndItsRefusalsKeepTheirCost() throws Exception {
        fetch(51);
        assertTrue(fixture.host().snapshot(fixture.clock.millis()).windowMillis > 16_000, "the first period ran to the header's 14 s");
        fetch(1_949);
        assertEquals(Category.UNRELIABLE, fixture.category(), "24 s and 36 s for a period of 16.5 s: ratios 1, 0.69, 0.46");
        assertTrue(refusals.size() <= 4, "truthful and unreliable both wait the header: a change between them keeps the"
                + " refusals' cost, and the probe's long cycle: " + refusals);
        fixture.listener.decisions.forEach(d -> assertTrue(d.waitBeforeNextRequest().millis() >= 1_000, "floor: " + d));
    }

    private void fetch(int records) throws Exception {
        portal.fetch(fixture, records, now -> {
            refusals.add(now);
            return Integer.toString(HEADERS[(refusals.size() - 1) % HEADERS.length]);
        });
    }
}
