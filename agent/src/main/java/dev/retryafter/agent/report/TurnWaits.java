package dev.retryafter.agent.report;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.HostKnowledge;
import dev.retryafter.agent.engine.HostSnapshot;
import dev.retryafter.agent.engine.HostState;

/**
 * What one request's turn waited for, part by part: each wait the engine asked for is told here as
 * it begins ({@link #waitBegins}) and put down to its cause by what the host's knowledge says at
 * that moment: a moment set by a refusal still ahead is a refusal's wait, a pace slot booked ahead
 * is the pace (a slot booked ahead of a host with no pace is a place behind a refusal's moment),
 * anything else the rate-limit hints' allowance. The time before the first wait is the queue for a
 * permit when it is long enough and the host's permits are all taken as the turn ends (a cold first
 * request is slow for its own reasons). Used by one thread at a time: the request's.
 */
final class TurnWaits {

    /** Less than this before the first wait is the agent's own work (a store read), not a queue. */
    static final long QUEUE_MIN_MILLIS = 10;

    Call call;
    long startedAt;
    /** When the first wait began; Long.MIN_VALUE: none yet. */
    long firstWaitAt;
    volatile boolean active;
    long paceMillis;
    long refusalMillis;
    long hintsMillis;
    long queueMillis;
    long totalMillis;

    void begin(Call call, long now) {
        this.call = call;
        this.startedAt = now;
        this.firstWaitAt = Long.MIN_VALUE;
        this.paceMillis = 0;
        this.refusalMillis = 0;
        this.hintsMillis = 0;
        this.queueMillis = 0;
        this.totalMillis = 0;
        this.active = true;
    }

    /** A wait of {@code millis} begins at {@code now}. */
    void waitBegins(long millis, long now) {
        if (firstWaitAt == Long.MIN_VALUE) {
            firstWaitAt = now;
        }
        HostKnowledge known = call.host().knowledge();
        long notBefore = known.notBefore().orElse(Long.MIN_VALUE);
        long refusal = notBefore > now ? Math.min(millis, notBefore - now) : 0;
        refusalMillis += refusal;
        long rest = millis - refusal;
        if (rest > 0) {
            if (known.nextSlot().orElse(Long.MIN_VALUE) <= now) {
                hintsMillis += rest;
            } else if (known.pace().isPresent() || call.host().policy().startRatePerSecond() > 0) {
                paceMillis += rest;
            } else {
                refusalMillis += rest;
            }
        }
    }

    /** The turn is over at {@code now}; whether anything waited. {@code enforced}: the host's mode is enforce. */
    boolean end(long now, boolean enforced) {
        active = false;
        totalMillis = Math.max(0, now - startedAt);
        long beforeFirstWait = (firstWaitAt == Long.MIN_VALUE ? now : firstWaitAt) - startedAt;
        queueMillis = beforeFirstWait >= QUEUE_MIN_MILLIS && enforced && allPermitsTaken(now) ? beforeFirstWait : 0;
        return queueMillis > 0 || paceMillis > 0 || refusalMillis > 0 || hintsMillis > 0;
    }

    /** Asked of slow turns only: a snapshot takes the host's lock. */
    private boolean allPermitsTaken(long now) {
        HostSnapshot s = call.host().snapshot(now);
        return s.inFlight >= s.maxConcurrency;
    }

    HostState host() {
        return call.host();
    }
}
