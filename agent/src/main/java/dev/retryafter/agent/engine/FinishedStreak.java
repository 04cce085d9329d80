package dev.retryafter.agent.engine;

import java.io.Serializable;
import java.util.OptionalLong;

/**
 * One refusal streak, over: what its first refusal's header said, and when, counted from that
 * refusal, the last refused request and the one that got through went out. The evidence a host's
 * category is judged from ({@link HostCharacteriser}). An immutable value.
 */
public final class FinishedStreak implements Serializable {

    private static final long serialVersionUID = HostKnowledge.VERSION;

    private final long startedAtMillis;
    /** {@link ObservationWindow#NO_HEADER} when the first refusal had no usable header. */
    private final long headerMillis;
    private final long lastRefusedAfterMillis;
    private final long recoveredByMillis;
    private final boolean whilePaced;

    FinishedStreak(long startedAtMillis, long headerMillis, long lastRefusedAfterMillis, long recoveredByMillis, boolean whilePaced) {
        this.startedAtMillis = startedAtMillis;
        this.headerMillis = headerMillis;
        this.lastRefusedAfterMillis = lastRefusedAfterMillis;
        this.recoveredByMillis = recoveredByMillis;
        this.whilePaced = whilePaced;
    }

    public static FinishedStreak of(long startedAtMillis, OptionalLong headerMillis, long lastRefusedAfterMillis,
                                    long recoveredByMillis, boolean whilePaced) {
        if (headerMillis.isPresent() && headerMillis.getAsLong() < 0 || lastRefusedAfterMillis < 0 || recoveredByMillis < 0) {
            throw new IllegalArgumentException("a streak's times count forward from its first refusal");
        }
        return new FinishedStreak(startedAtMillis, headerMillis.orElse(ObservationWindow.NO_HEADER), lastRefusedAfterMillis,
                recoveredByMillis, whilePaced);
    }

    /** The moment of the streak's first refusal. */
    public long startedAtMillis() {
        return startedAtMillis;
    }

    /** What the first refusal's {@code Retry-After} asked for; empty when it carried no usable one. */
    public OptionalLong headerMillis() {
        return headerMillis == ObservationWindow.NO_HEADER ? OptionalLong.empty() : OptionalLong.of(headerMillis);
    }

    long rawHeaderMillis() {
        return headerMillis;
    }

    /** When the last refused request of the streak went out, after the first refusal. */
    public long lastRefusedAfterMillis() {
        return lastRefusedAfterMillis;
    }

    /** When the request that got through went out, after the first refusal. */
    public long recoveredByMillis() {
        return recoveredByMillis;
    }

    /** The streak began while the host was paced, not in an unpaced first burst. */
    public boolean whilePaced() {
        return whilePaced;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof FinishedStreak)) {
            return false;
        }
        FinishedStreak other = (FinishedStreak) o;
        return startedAtMillis == other.startedAtMillis && headerMillis == other.headerMillis
                && lastRefusedAfterMillis == other.lastRefusedAfterMillis && recoveredByMillis == other.recoveredByMillis
                && whilePaced == other.whilePaced;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(startedAtMillis) * 31 + Long.hashCode(recoveredByMillis);
    }

    @Override
    public String toString() {
        return "FinishedStreak[at " + startedAtMillis + ", header " + headerMillis() + ", last refused +" + lastRefusedAfterMillis
                + "ms, recovered by +" + recoveredByMillis + "ms" + (whilePaced ? ", paced" : "") + "]";
    }
}
