package dev.retryafter.agent.engine.knowledge;

import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.WaitedTurn;

/**
 * Observe mode's stand-in for a turn: what enforce mode would have done before sending this
 * request. The request went at once whatever it says.
 */
public final class ObservedTurn {

    private final long wouldWaitMillis;
    private final boolean wouldQueue;
    private final HostHeldException wouldFailFast;
    private final WaitedTurn wouldWait;

    public ObservedTurn(long wouldWaitMillis, boolean wouldQueue, HostHeldException wouldFailFast, WaitedTurn wouldWait) {
        this.wouldWaitMillis = wouldWaitMillis;
        this.wouldQueue = wouldQueue;
        this.wouldFailFast = wouldFailFast;
        this.wouldWait = wouldWait;
    }

    /** How long enforce mode would have held the request back: a refusal's wait, or the pace. */
    public long wouldWaitMillis() {
        return wouldWaitMillis;
    }

    /** {@link #wouldWaitMillis()} by cause, as enforce mode would have waited it: a refusal's wait, then the pace. */
    public WaitedTurn wouldWait() {
        return wouldWait;
    }

    /** Whether the host's cap was full: enforce mode would have queued the request for a permit. */
    public boolean wouldQueue() {
        return wouldQueue;
    }

    /** The hold enforce mode would have failed the request with; null when the host is not held. */
    public HostHeldException wouldFailFast() {
        return wouldFailFast;
    }

    /** Whether enforce mode would have done anything at all to this request. */
    public boolean changesAnything() {
        return wouldWaitMillis > 0 || wouldQueue || wouldFailFast != null;
    }
}
