package dev.retryafter.agent.engine.knowledge;

/**
 * A truthful host asking for longer than max-sleep is held only once the claim is confirmed: after
 * waiting max-sleep the host refused again and named the same moment. A portal that used to be
 * truthful and now sends a constant 3600 names a moment that moves with the clock, so it is never
 * held for an hour on a lie; it is re-characterised instead.
 */
public final class LongWaitClaim {

    private long firstSeenAt = -1;
    private long firstEnd;

    /** Delay-seconds round to whole seconds: a truthful host's named moment moves by less than this. */
    private static final long ROUNDING_MILLIS = 1000;

    /**
     * Records a claim that the host recovers at {@code end}; true when it confirms the earlier one,
     * which is then forgotten. A claim whose moment moved is a new claim: it replaces the old one, so
     * a host held once can be held again for a later wait.
     */
    public boolean confirmedBy(long end, long now) {
        if (firstSeenAt >= 0) {
            long elapsed = now - firstSeenAt;
            long drift = Math.abs(end - firstEnd);
            // A truthful end drifts by under a second; a constant header's end drifts by all the time that passed.
            if (2 * drift + ROUNDING_MILLIS <= elapsed) {
                forget();
                return true;
            }
            if (drift <= ROUNDING_MILLIS) {
                return false; // the same moment, too soon to tell: keep the first sighting
            }
        }
        firstSeenAt = now;
        firstEnd = end;
        return false;
    }

    public void forget() {
        firstSeenAt = -1;
    }
}
