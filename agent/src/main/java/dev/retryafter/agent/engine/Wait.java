package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.decide.Decide;

/**
 * A wait and why: a refusal's sanitised wait, with its reason and the bound that changed it; or a part
 * of what a request's turn waited for ({@link WaitedTurn}), with its cause ({@link Reason#PACE},
 * {@link Reason#QUEUE_AT_CAP}, a refusal's reason...) and no bound.
 */
public final class Wait {

    /** Which bound, if any, changed the wait. */
    public enum Bound {
        NONE, FLOOR, CEILING,
        /** Cut to the end of the refusal streak's first window, by when a limit counted per window has room again. */
        WINDOW,
        /** Raised for a request's last tries, kept for when the host is likely to have room ({@link Decide#lastTriesUntil}). */
        LAST_TRY,
        /**
         * Raised to the pace of the search for the end of a window not yet known ({@link Decide#searchedWindowLeft}), or
         * to where a window of a round length would end ({@link Decide#withinFirstWindow}).
         */
        SEARCH
    }

    private final long millis;
    private final Reason reason;
    private final Bound bound;
    private final long hostMillis;

    public Wait(long millis, Reason reason, Bound bound) {
        this(millis, reason, bound, millis);
    }

    /**
     * A wait of which the host waits only {@code hostMillis}: the rest is the request's own, its last tries
     * kept for when the host is likely to have room while the others look for that moment.
     */
    public Wait(long millis, Reason reason, Bound bound, long hostMillis) {
        this.millis = millis;
        this.reason = reason;
        this.bound = bound;
        this.hostMillis = Math.min(millis, hostMillis);
    }

    public long millis() {
        return millis;
    }

    public Reason reason() {
        return reason;
    }

    public Bound bound() {
        return bound;
    }

    /** How long no request may go to the host: all of {@link #millis()} but where the rest is the request's own. */
    public long hostMillis() {
        return hostMillis;
    }

    /** "header ignored (always zero): own backoff, raised to min-sleep" */
    public String explanation() {
        switch (bound) {
            case FLOOR:
                return reason.text() + ", raised to min-sleep";
            case CEILING:
                return reason.text() + ", cut to max-sleep";
            case WINDOW:
                return reason.text() + ", cut to the streak's first window";
            case LAST_TRY:
                return reason.text() + ", raised: a request's last tries wait for when the host is likely to have room";
            case SEARCH:
                return reason.text() + ", raised: the window's end is looked for at half the streak's age or a round window's end";
            default:
                return reason.text();
        }
    }

    /** A part of a turn: {@code millis} waited for {@code cause}. */
    static Wait of(long millis, Reason cause) {
        return new Wait(millis, cause, Bound.NONE);
    }

    @Override
    public String toString() {
        return millis + "ms: " + explanation();
    }
}
