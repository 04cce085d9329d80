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
class HeaderSetPeriodTest {

    private static final int LIMIT = 50;
    private static final long WINDOW = 10_000;
    private static final int[] HEADERS = {14, 24, 36, 38, 46, 10, 27, 16, 51, 8, 36, 9};

    private final EngineFixture fixture = new EngineFixture(Policy.DEFAULTS);
    private final long start = fixture.clock.millis();
    private final List<Long> refusals = new ArrayList<>();
    private long windowIndex;
    private int used;

    @Test
    void aPeriodTheHeaderEndedIsProbedSoonAndReadOverOneOfIt() throws Exception {
        fetch(51); // the first burst, its streak ended only after the header's 14 s
        HostSnapshot first = fixture.host().snapshot(fixture.clock.millis());
        assertTrue(first.windowMillis > 16_000, "the period runs to the end of the header's wait: " + first.windowMillis);
        fetch(400);
        assertTrue(refusals.size() >= 2, "the first reading, 51 in 16.5 s, is probed: " + refusals);
        long probeAfter = refusals.get(1) - start - first.windowMillis;
        assertTrue(probeAfter < 60_000, "the first reading is probed within the shortest first cycle, not 10 periods: " + probeAfter);
        double pace = fixture.host().snapshot(fixture.clock.millis()).pacePerMinute();
        assertTrue(pace > 0.75 * 300 && pace <= 300, "read over one period (not three of the climb), near 300/min: " + pace);
    }

    @Test
    void aRandomHeaderIsNotTruthfulOnceItNamesWaitsBeyondThePeriodAndItsRefusalsKeepTheirCost() throws Exception {
        fetch(2_000);
        assertEquals(Category.UNRELIABLE, fixture.category(), "24 s and 36 s for a period of 16.5 s: ratios 1, 0.69, 0.46");
        assertTrue(refusals.size() <= 4, "truthful and unreliable both wait the header: a change between them keeps the"
                + " refusals' cost, and the probe's long cycle: " + refusals);
        fixture.listener.decisions.forEach(d -> assertTrue(d.waitBeforeNextRequest().millis() >= 1_000, "floor: " + d));
    }

    /** {@code records} fetched one after another, each retried as the engine decides. */
    private void fetch(int records) throws Exception {
        for (int i = 0; i < records; i++) {
            Call call = fixture.engine.open("portal.example", 443, true);
            do {
                call.awaitTurn();
                fixture.clock.advance(50);
                long now = fixture.clock.millis();
                boolean admitted = admit(now);
                if (!admitted) {
                    refusals.add(now);
                }
                call.onResponse(admitted ? 200 : 429, admitted ? null : Integer.toString(HEADERS[(refusals.size() - 1) % HEADERS.length]));
                call.endAttempt();
            } while (call.retryRequested());
        }
    }

    private boolean admit(long now) {
        long index = (now - start) / WINDOW;
        if (index != windowIndex) {
            windowIndex = index;
            used = 0;
        }
        return used++ < LIMIT;
    }
}
