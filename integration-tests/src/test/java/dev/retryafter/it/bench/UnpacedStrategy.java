package dev.retryafter.it.bench;

import java.util.concurrent.CompletableFuture;

/**
 * A client that never paces and remembers nothing between records: each refusal is answered by a
 * rule that sees only the attempt number and the header, as HTTP client retry strategies do.
 */
abstract class UnpacedStrategy implements Strategy {

    private static final CompletableFuture<Void> NOW = CompletableFuture.completedFuture(null);

    @Override
    public Fetch open() {
        return new Fetch() {
            private int attempt;

            @Override
            public CompletableFuture<Void> turn() {
                attempt++;
                return NOW;
            }

            @Override
            public Next onResponse(int status, String retryAfter) {
                return isRefusal(status) ? onRefusal(attempt, retryAfter) : Next.DONE;
            }
        };
    }

    /** 429 and 503, the statuses RFC 9110 and RFC 6585 pair with Retry-After. */
    static boolean isRefusal(int status) {
        return status == 429 || status == 503;
    }

    /** The answer to the refusal of attempt {@code attempt} (the first is 1). */
    abstract Next onRefusal(int attempt, String retryAfter);
}
