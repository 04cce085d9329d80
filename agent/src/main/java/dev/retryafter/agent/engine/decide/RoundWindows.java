package dev.retryafter.agent.engine.decide;

import dev.retryafter.agent.engine.knowledge.HostKnowledge;

/**
 * Where a window of a length portals configure would end, counted from the host's first period: a limit is
 * set as so many per second, per 10 s or per minute, seldom per 7 s, and a counter that begins with a
 * client's first request resets that long after it. A search for a window's end with few tries to spend
 * spends them on these moments ({@link Decide#withinFirstWindow}).
 */
final class RoundWindows {

    /** The lengths, shortest first; a minute and longer are the default window's, which the last tries wait for anyway. */
    static final long[] LENGTHS_MILLIS = {1_000, 2_000, 5_000, 10_000, 15_000, 20_000, 30_000};

    /** How far from a moment on a log scale an end may be and still stand in for it: a factor of 1.5. */
    private static final double NEAR = Math.log(1.5);

    private RoundWindows() {
    }

    /**
     * The first end after {@code after} of a window shorter than {@code longest} that began at {@code start};
     * {@link HostKnowledge#NO_MOMENT} if there is none, or the start is not known.
     */
    static long firstEndAfter(long start, long after, long longest) {
        if (start == HostKnowledge.NO_MOMENT) {
            return HostKnowledge.NO_MOMENT;
        }
        for (long length : LENGTHS_MILLIS) {
            if (length >= longest) {
                break;
            }
            if (start + length > after) {
                return start + length;
            }
        }
        return HostKnowledge.NO_MOMENT;
    }

    /**
     * The end of a window shorter than {@code longest} begun at {@code start} nearest to {@code moment} (on a log
     * scale of the time since {@code start}, within a factor of 1.5), and no sooner than {@code notBefore};
     * {@code moment} itself where none is that near.
     */
    static long nearestEnd(long start, long moment, long notBefore, long longest) {
        if (start == HostKnowledge.NO_MOMENT || moment <= start) {
            return moment;
        }
        long nearest = moment;
        double distance = NEAR;
        for (long length : LENGTHS_MILLIS) {
            if (length >= longest) {
                break;
            }
            double from = Math.abs(Math.log((double) length / (moment - start)));
            if (start + length >= notBefore && from < distance) {
                nearest = start + length;
                distance = from;
            }
        }
        return nearest;
    }
}
