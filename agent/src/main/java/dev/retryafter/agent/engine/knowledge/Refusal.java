package dev.retryafter.agent.engine.knowledge;

import dev.retryafter.agent.engine.HostState;

import dev.retryafter.agent.engine.header.RetryAfter;

/**
 * One refusal as the decision sees it: when it came, its status, its header, and whether it confirms
 * an earlier claim of a long wait (the same moment named twice, see {@link LongWaitClaim}).
 */
public final class Refusal {

    public final long now;
    public final int status;
    public final RetryAfter header;
    public final boolean confirmsLongWait;
    /**
     * The request went out before the streak's latest refusal was known (before the streak began, or
     * before the wait it imposed ended): the echo of a refusal already answered, which tells the
     * host is still refusing nothing new. Many requests in flight at once (threads, or a fleet's JVMs)
     * come back as many echoes.
     */
    public final boolean echo;
    /**
     * How long a hold for refusals that persist would last ({@link HostState}: longer each time the
     * probe after one is refused); 0 never holds for persistence.
     */
    public final long persistentHoldMillis;
    /** The host's period as learned ({@link HostState}), which bounds its recoveries for the category; 0: none yet. */
    public final long periodMillis;
    /** When the host's first period began, as far as this JVM can tell ({@link HostState}); {@link HostKnowledge#NO_MOMENT}: not known. */
    public final long periodStartedAtMillis;

    public Refusal(long now, int status, RetryAfter header, boolean confirmsLongWait) {
        this(now, status, header, confirmsLongWait, false, 0);
    }

    public Refusal(long now, int status, RetryAfter header, boolean confirmsLongWait, boolean echo, long persistentHoldMillis) {
        this(now, status, header, confirmsLongWait, echo, persistentHoldMillis, 0, HostKnowledge.NO_MOMENT);
    }

    public Refusal(long now, int status, RetryAfter header, boolean confirmsLongWait, boolean echo, long persistentHoldMillis,
            long periodMillis, long periodStartedAtMillis) {
        this.now = now;
        this.status = status;
        this.header = header;
        this.confirmsLongWait = confirmsLongWait;
        this.echo = echo;
        this.persistentHoldMillis = persistentHoldMillis;
        this.periodMillis = periodMillis;
        this.periodStartedAtMillis = periodStartedAtMillis;
    }
}
