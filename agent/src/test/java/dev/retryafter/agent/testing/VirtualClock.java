package dev.retryafter.agent.testing;

import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.engine.Sleeper;

import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when told to, and a sleeper that moves it: an hour of portal in a millisecond. */
public final class VirtualClock implements Clock, Sleeper {

    /** 2026-11-01T00:00:00Z, so HTTP-dates in tests read like real ones. */
    public static final long START = 1_793_491_200_000L;

    private final AtomicLong now;
    private final AtomicLong slept = new AtomicLong();

    public VirtualClock() {
        this(START);
    }

    public VirtualClock(long startMillis) {
        this.now = new AtomicLong(startMillis);
    }

    @Override
    public long millis() {
        return now.get();
    }

    @Override
    public void sleep(long millis) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        slept.addAndGet(millis);
        now.addAndGet(millis);
    }

    public void advance(long millis) {
        now.addAndGet(millis);
    }

    public void set(long millis) {
        now.set(millis);
    }

    /** All the time spent in {@link #sleep}. */
    public long totalSleptMillis() {
        return slept.get();
    }
}
