package dev.retryafter.agent.engine.decide;

/**
 * Full-jitter exponential backoff: {@code uniform(0, min(cap, base * 2^(attempt-1)))}. The random
 * number comes in as a parameter, so tests can name exact values.
 */
final class Backoff {

    private Backoff() {
    }

    /** @param random uniform in [0, 1) */
    static long fullJitter(int attempt, double random, long baseMillis, long capMillis) {
        return (long) (random * bound(attempt, baseMillis, capMillis));
    }

    static long bound(int attempt, long baseMillis, long capMillis) {
        int doublings = Math.max(0, attempt - 1);
        // base << doublings overflows long past ~62 doublings; the cap is reached long before.
        if (doublings >= 62 || baseMillis > (capMillis >> doublings)) {
            return capMillis;
        }
        return Math.min(capMillis, baseMillis << doublings);
    }
}
