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

    Refusal(long now, int status, RetryAfter header, boolean confirmsLongWait) {
        this.now = now;
        this.status = status;
        this.header = header;
        this.confirmsLongWait = confirmsLongWait;
    }
}
