package dev.retryafter.agent.engine.learn;

import java.util.function.LongToDoubleFunction;

/**
 * The rate a host refused, read at the first refusal of a streak without knowing its window: a pure
 * function of what was sent and what was let through.
 *
 * <p>While paced, the pace is an upper bound: the host refused it. What the host let through just
 * before is a lower bound, read over a span that holds none of the pace's own dip after a refusal:
 * the last few windows. The refused rate is the lower of the two, so a pace that probed past the
 * limit (a fixed window admits its limit and no more, however fast it is sent to) restarts from the
 * limit, not from the probe, and its next refusal is a whole cycle away. When the previous streak
 * began only a few windows back, the pace has been over the limit since (the limit fell, or a reading
 * was high), and what the host let through since that streak ended is the limit itself. Unpaced,
 * only what got through says anything, and only over a span that began at a refusal: counted from
 * the first request, it measures the client's own speed in the limit's first burst.
 */
public final class RefusedRate {

    /** Nothing to read: the caller keeps a provisional reading. */
    static final double UNKNOWN = 0;

    /**
     * What got through is read over this many windows at most: a previous streak this few windows
     * back means the pace has been over the limit since, and what got through in between is the
     * limit itself; further back, the last few windows before the refusal hold the pace at its
     * highest, and none of its dip.
     */
    public static final int RECENT_WINDOWS = 3;

    /**
     * A span over which the pace rose at least this many times (the probe climbing from a reading taken low) is read
     * over its last window only: over all of it, what got through is the climb's average, not what the host takes at
     * the pace's height. Measured in the limiter benchmark: a 10 s, 20 s or 30 s window read this way ran at 0.63 to
     * 0.84 of its limit on one worker, against 0.55 to 0.71; the random header at 0.66, against 0.53; every other cell
     * the same. Lower (1.75) read a 60 s window's ordinary climb back to its plateau so, and went over 1% refused.
     */
    static final double CLIMBED = 2;

    /**
     * A span over which the pace rose at least this many times, but less than {@link #CLIMBED}, is read over its last
     * two windows: over three, what got through is mostly the pace on its way up, a lower bound that left a 20 s
     * window of 40 paced at 0.88 of its limit on four workers (0.95 over two). One window is too few for a fixed
     * window whose count it straddles: fixed 100 / 60 s refused 1.1% with the last window at 1.5, against 0.9%.
     * Lower (1.3) read the climb of drift 8 to 20 per 2 s so, and it fell from 0.89 to 0.82.
     */
    static final double ROSE = 1.5;

    private RefusedRate() {
    }

    /**
     * The span what got through is read over, ending at the refusal: since the previous streak ended when
     * it began only a few windows back ({@code sinceStreak}), else the last {@link #RECENT_WINDOWS} windows.
     */
    public static long spanMillis(long sinceStreakEnded, long sinceStreak, long windowMillis) {
        boolean recent = sinceStreak <= RECENT_WINDOWS * windowMillis;
        return recent ? sinceStreakEnded : Math.min(sinceStreakEnded, RECENT_WINDOWS * windowMillis);
    }

    /**
     * The span to read, {@code spanMillis}; where the pace rose over it from {@code pacedAtStart} to {@code pacedAtRefusal}
     * ({@link #ROSE}), its last two windows; where it at least doubled ({@link #CLIMBED}), its last {@code nearTopMillis}
     * (how long the pace was near its height; {@code Long.MAX_VALUE} for the whole span) or its last window, whichever
     * is shorter. A window learned from a first streak whose last tries waited long is too long (65 s for a window of
     * 10 s), and read over it, the climb's average is taken for the limit.
     */
    public static long lastWindowIfClimbed(long spanMillis, long windowMillis, double pacedAtStart, double pacedAtRefusal,
                                           long nearTopMillis) {
        boolean climbed = pacedAtStart > 0 && pacedAtRefusal >= CLIMBED * pacedAtStart;
        if (!climbed) {
            boolean rose = pacedAtStart > 0 && pacedAtRefusal >= ROSE * pacedAtStart;
            return rose && windowMillis > 0 ? Math.min(spanMillis, 2 * windowMillis) : spanMillis;
        }
        long last = windowMillis > 0 ? Math.min(windowMillis, nearTopMillis) : nearTopMillis;
        return last > 0 && last < spanMillis ? last : spanMillis;
    }

    /** Within this fraction of its height, the pace is near it: what got through there is read as what the host takes. */
    static final double NEAR_TOP = 0.7;

    /** However steep the climb, the stretch near its top holds this many of the pace's requests: a count, not a few samples. */
    static final int NEAR_TOP_REQUESTS = 30;

    /**
     * How long, up to {@code spanMillis} before {@code now}, the pace ({@code paceAt}, rising over the span) was within
     * {@link #NEAR_TOP} of its value at {@code now}, and no shorter than {@link #NEAR_TOP_REQUESTS} at that value.
     */
    public static long nearTopMillis(final PaceSchedule pace, final double headroom, long now, long spanMillis) {
        return nearTopMillis(new LongToDoubleFunction() { // not a lambda, as the rest of the agent's engine: see AgentInstaller
            @Override
            public double applyAsDouble(long moment) {
                return AdaptivePace.rate(pace, headroom, moment);
            }
        }, now, spanMillis);
    }

    static long nearTopMillis(LongToDoubleFunction paceAt, long now, long spanMillis) {
        double top = paceAt.applyAsDouble(now);
        if (top <= 0) {
            return spanMillis;
        }
        long low = 0;
        long high = spanMillis; // the pace was near the top at now - low; perhaps not at now - high
        while (high - low > 100) {
            long middle = (low + high) >>> 1;
            if (paceAt.applyAsDouble(now - middle) >= NEAR_TOP * top) {
                low = middle;
            } else {
                high = middle;
            }
        }
        return Math.min(spanMillis, Math.max(low, (long) (NEAR_TOP_REQUESTS * 1000 / top)));
    }

    /**
     * @param pacedRate     the pace at the refusal, requests a second; 0 when unpaced
     * @param admitted      requests let through over the span ({@link #spanMillis})
     * @param sendingMillis the span's length
     */
    public static double at(double pacedRate, int admitted, long sendingMillis, double pacedBefore) {
        double through = admitted > 0 && sendingMillis > 0 ? Math.max(admitted * 1000.0 / sendingMillis, pacedBefore) : UNKNOWN;
        if (pacedRate <= 0 || through <= 0) {
            return through > 0 ? through : pacedRate;
        }
        return Math.min(through, pacedRate);
    }

    /**
     * At the end of a host's first streak: the limit's first period is the time from the first
     * request to the moment it had room again (between the last request refused and the first let
     * through again), and everything let through before the streak fits in it. For a fixed or rolling window that is its limit over its length; for a bucket its
     * burst and refill over the time to drain it, a reading the next streak corrects.
     */
    public static double firstPeriod(int admittedBeforeStreak, long firstSentMillis, long roomAgainMillis) {
        long span = roomAgainMillis - firstSentMillis;
        return admittedBeforeStreak > 0 && span > 0 ? admittedBeforeStreak * 1000.0 / span : UNKNOWN;
    }
}
