package dev.retryafter.agent.engine;

import java.util.function.LongFunction;

/**
 * A fixed window of {@code limit} per {@code windowMillis} from {@code start}, fetched from one request at a time,
 * 50 ms each, every record retried as the engine decides; {@code headerAt} names the Retry-After of a refusal.
 */
final class FixedWindowPortal {

    private final int limit;
    private final long windowMillis;
    private final long start;
    private long windowIndex;
    private int used;

    FixedWindowPortal(int limit, long windowMillis, long start) {
        this.limit = limit;
        this.windowMillis = windowMillis;
        this.start = start;
    }

    void fetch(EngineFixture fixture, int records, LongFunction<String> headerAt) throws Exception {
        fetch(fixture, records, headerAt, 0);
    }

    /** As {@link #fetch(EngineFixture, int, LongFunction)}, the first request leaving {@code firstLateMillis} after its turn: a cold client's. */
    void fetch(EngineFixture fixture, int records, LongFunction<String> headerAt, long firstLateMillis) throws Exception {
        long late = firstLateMillis;
        for (int i = 0; i < records; i++) {
            Call call = fixture.engine.open("portal.example", 443, true);
            do {
                call.awaitTurn();
                fixture.clock.advance(late + 50);
                late = 0;
                long now = fixture.clock.millis();
                boolean admitted = admit(now);
                call.onResponse(admitted ? 200 : 429, admitted ? null : headerAt.apply(now));
                call.endAttempt();
            } while (call.retryRequested());
        }
    }

    private boolean admit(long now) {
        long index = (now - start) / windowMillis;
        if (index != windowIndex) {
            windowIndex = index;
            used = 0;
        }
        return used++ < limit;
    }
}
