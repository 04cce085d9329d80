package dev.retryafter.agent.engine;

/**
 * One refusal as the decision sees it: when it came, its status, its header, and whether it confirms
 * an earlier claim of a long wait (the same moment named twice, see {@link LongWaitClaim}).
 */
final class Refusal {

    final long now;
    final int status;
    final RetryAfter header;
    final boolean confirmsLongWait;
    /**
     * The request went out before the streak's latest refusal was known (before the streak began, or
     * before the wait it imposed ended): the echo of a refusal already answered, which tells the
     * host is still refusing nothing new. Many requests in flight at once (threads, or a fleet's JVMs)
     * come back as many echoes.
     */
    final boolean echo;

    Refusal(long now, int status, RetryAfter header, boolean confirmsLongWait) {
        this(now, status, header, confirmsLongWait, false);
    }

    Refusal(long now, int status, RetryAfter header, boolean confirmsLongWait, boolean echo) {
        this.now = now;
        this.status = status;
        this.header = header;
        this.confirmsLongWait = confirmsLongWait;
        this.echo = echo;
    }
}
