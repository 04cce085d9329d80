package dev.retryafter.agent.engine;

/**
 * A truthful host asking for longer than max-sleep is held only once the claim is confirmed: after
 * waiting max-sleep the host refused again and named the same moment. A portal that used to be
 * truthful and now sends a constant 3600 names a moment that moves with the clock, so it is never
 * held for an hour on a lie; it is re-characterised instead.
 */
final class LongWaitClaim {

    private long firstSeenAt = -1;
    private long firstEnd;

    /** Records a claim that the host recovers at {@code end}; true when it confirms the first one. */
    boolean confirmedBy(long end, long now) {
        if (firstSeenAt < 0) {
            firstSeenAt = now;
            firstEnd = end;
            return false;
        }
        long elapsed = now - firstSeenAt;
        long drift = Math.abs(end - firstEnd);
        // Delay-seconds round to whole seconds, so a truthful end drifts by under a second; a constant
        // header's end drifts by all the time that passed.
        return 2 * drift + 1000 < elapsed;
    }

    void forget() {
        firstSeenAt = -1;
    }
}
