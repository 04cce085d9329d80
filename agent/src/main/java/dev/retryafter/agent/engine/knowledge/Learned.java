package dev.retryafter.agent.engine.knowledge;

import dev.retryafter.agent.engine.DecisionLine;

/**
 * What the first refusal of a streak taught about a host: the ceiling it revealed (successes in the
 * window before it) and the pace the host is sent requests at from now on.
 */
public final class Learned {

    private final String host;
    private final int ceiling;
    private final long windowMillis;
    private final double pacePerSecond;

    public Learned(String host, int ceiling, long windowMillis, double pacePerSecond) {
        this.host = host;
        this.ceiling = ceiling;
        this.windowMillis = windowMillis;
        this.pacePerSecond = pacePerSecond;
    }

    /** "host:port". */
    public String host() {
        return host;
    }

    /** Successes in the window before the refusal: a lower bound on the host's limit. 0 or more. */
    public int ceiling() {
        return ceiling;
    }

    public long windowMillis() {
        return windowMillis;
    }

    /** The pace now, in requests per second; 0 when nothing sets one (no success in the window, no pace before). */
    public double pacePerSecond() {
        return pacePerSecond;
    }

    /** Whether the host is now paced at all. */
    public boolean isPaced() {
        return pacePerSecond > 0;
    }

    @Override
    public String toString() {
        return host + " learned ceiling " + ceiling + " per " + DecisionLine.duration(windowMillis) + ", pace " + pacePerSecond + "/s";
    }
}
