package dev.retryafter.agent.engine;

/**
 * The rate a host refused, read at the first refusal of a streak without knowing its window: a pure
 * function of what was sent and what was let through.
 *
 * <p>While paced, the pace is what the host refused (CUBIC's reading of a loss), unless the previous
 * streak began only a few windows back: then the pace has been over the limit since (the limit fell,
 * or a reading was high), and what the host let through since that streak ended is the limit itself. A span any longer
 * holds the pace's own dip and climb, and reads under a limit that never moved. Unpaced, only what
 * got through says anything, and only over a span that began at a refusal: counted from the first
 * request, it measures the client's own speed in the limit's first burst.
 */
final class RefusedRate {

    /** Nothing to read: the caller keeps a provisional reading. */
    static final double UNKNOWN = 0;

    /**
     * A previous streak this few windows back means the pace has been over the limit since: what got
     * through in between is the limit itself, not the pace's climb.
     */
    static final int RECENT_WINDOWS = 3;

    private RefusedRate() {
    }

    /**
     * @param pacedRate     the pace at the refusal, requests a second; 0 when unpaced
     * @param admitted      requests let through since the previous streak ended
     * @param sendingMillis how long ago the previous streak ended: the time they were sent in
     * @param sinceStreak   how long ago the previous streak began
     * @param windowMillis  the host's window as learned so far
     */
    static double at(double pacedRate, int admitted, long sendingMillis, long sinceStreak, long windowMillis) {
        double through = admitted > 0 && sendingMillis > 0 ? admitted * 1000.0 / sendingMillis : UNKNOWN;
        if (pacedRate <= 0 || through <= 0) {
            return through > 0 ? through : pacedRate;
        }
        boolean recent = sinceStreak <= RECENT_WINDOWS * windowMillis;
        return recent && through < pacedRate ? through : pacedRate;
    }

    /**
     * At the end of a host's first streak: the limit's first period is the time from the first
     * request to the moment it had room again (between the last request refused and the first let
     * through again), and everything let through before the streak fits in it. For a fixed or rolling window that is its limit over its length; for a bucket its
     * burst and refill over the time to drain it, a reading the next streak corrects.
     */
    static double firstPeriod(int admittedBeforeStreak, long firstSentMillis, long roomAgainMillis) {
        long span = roomAgainMillis - firstSentMillis;
        return admittedBeforeStreak > 0 && span > 0 ? admittedBeforeStreak * 1000.0 / span : UNKNOWN;
    }
}
