package dev.retryafter.agent.engine.learn;

import java.util.OptionalLong;

/**
 * Infers a host's real limit by watching when refusals start: more reliable than documentation,
 * which portals rarely have and rarely update. The guide's semantics: the observed ceiling is the
 * number of successes in the window before the first refusal in it, a lower bound on the limit;
 * the suggested rate is {@code headroom * ceiling / window}. A success is recorded from any thread
 * without a lock ({@link #recordSuccess}); everything else is done under the caller's lock.
 */
public final class LearnedLimit {

    /**
     * Enough to count what a host let through between two streaks at limits up to 4,096 a window
     * (Socrata's 1,000 an hour among them); the ring grows only as far as a host's traffic takes it.
     */
    static final int DEFAULT_HISTORY = 4096;

    /** Returned when no refusal lies in the window: nothing has been learned. */
    public static final int NONE = -1;

    private final long windowMillis;
    private final ConcurrentTimestampRing successes;
    private final TimestampRing rejections;

    public LearnedLimit(long windowMillis) {
        this(windowMillis, DEFAULT_HISTORY);
    }

    public LearnedLimit(long windowMillis, int history) {
        this.windowMillis = windowMillis;
        this.successes = new ConcurrentTimestampRing(history);
        this.rejections = new TimestampRing(Math.min(history, 64));
    }

    /** Records a response: {@code ok} when the host let the request through, false for a refusal. */
    public void record(long timestamp, boolean ok) {
        if (ok) {
            recordSuccess(timestamp);
        } else {
            rejections.add(timestamp);
        }
    }

    /** A response the host let through; threadsafe, and takes no lock. */
    public void recordSuccess(long timestamp) {
        successes.add(timestamp);
    }

    /** Successes in the window before its first refusal, or {@link #NONE} when no refusal is in the window. */
    public int observedCeiling(long now) {
        long cutoff = now - windowMillis;
        long firstRefusal = Long.MIN_VALUE;
        for (int i = 0; i < rejections.size(); i++) {
            long t = rejections.get(i);
            if (t >= cutoff) {
                firstRefusal = t;
                break;
            }
        }
        if (firstRefusal == Long.MIN_VALUE) {
            return NONE;
        }
        int count = 0;
        for (int i = 0; i < successes.size(); i++) {
            long t = successes.get(i);
            if (t >= cutoff && t < firstRefusal) {
                count++;
            }
        }
        return count;
    }

    /**
     * The ceiling a refusal at {@code refusal} reveals: successes in the window before it, counted
     * from the previous refusal if that lies in the window. The guide's reading counts up to the
     * first refusal in the window, which goes stale when an earlier streak is still in it: a refusal
     * 50 s ago would make today's limit of 40 read as the 4 successes before that one.
     */
    public int ceilingBefore(long refusal) {
        return ceilingBefore(refusal, windowMillis);
    }

    /** As {@link #ceilingBefore(long)}, over a window of {@code windowMillis}: a store counts for hosts of any window. */
    public int ceilingBefore(long refusal, long windowMillis) {
        long from = refusal - windowMillis;
        for (int i = 0; i < rejections.size(); i++) {
            long t = rejections.get(i);
            if (t < refusal && t >= from) {
                from = t;
            }
        }
        int count = 0;
        for (int i = 0; i < successes.size(); i++) {
            long t = successes.get(i);
            if (t >= from && t <= refusal) { // answers that arrived in the refusal's millisecond were let through first
                count++;
            }
        }
        return count;
    }

    /** The earliest success in [{@code from}, {@code before}), if any. */
    public OptionalLong firstSuccess(long from, long before) {
        long first = Long.MAX_VALUE;
        for (int i = 0; i < successes.size(); i++) {
            long t = successes.get(i);
            if (t >= from && t < before && t < first) {
                first = t;
            }
        }
        return first == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(first);
    }

    /** {@code headroom * ceiling / window} in requests per second, or NaN when nothing has been learned. */
    public double suggestedRate(long now, double headroom) {
        int ceiling = observedCeiling(now);
        return ceiling == NONE ? Double.NaN : headroom * ceiling * 1000.0 / windowMillis;
    }

    public long windowMillis() {
        return windowMillis;
    }
}
