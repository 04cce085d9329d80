package dev.retryafter.it.bench;

import java.util.Random;

/** Ignores the header: full-jitter exponential backoff, never under a second, five attempts. */
final class BackoffOnlyStrategy extends UnpacedStrategy {

    static final int MAX_ATTEMPTS = 5;
    static final long BASE_MILLIS = 500;
    static final long CAP_MILLIS = 60_000;
    /** The same floor as the agent's, so the comparison is about the header, not about hot loops. */
    static final long FLOOR_MILLIS = 1_000;

    private final Random random;

    BackoffOnlyStrategy(long seed) {
        this.random = new Random(seed);
    }

    @Override
    Next onRefusal(int attempt, String retryAfter) {
        if (attempt >= MAX_ATTEMPTS) {
            return Next.DONE;
        }
        long bound = Math.min(CAP_MILLIS, BASE_MILLIS << (attempt - 1));
        return Next.resendAfter(Math.max(FLOOR_MILLIS, (long) (random.nextDouble() * bound)));
    }
}
