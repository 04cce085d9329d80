package dev.retryafter.agent.engine.knowledge;

import dev.retryafter.agent.engine.learn.HostCharacteriser;
import dev.retryafter.agent.engine.learn.ObservationWindow;

import java.util.OptionalLong;

/**
 * One refusal streak, over: what its first refusal's header said, and when, counted from that
 * refusal, the last refused request and the one that got through went out. The evidence a host's
 * category is judged from ({@link HostCharacteriser}). An immutable value.
 */
public final class FinishedStreak extends Streak {

    private static final long serialVersionUID = HostKnowledge.VERSION;

    private final long lastRefusedAfterMillis;
    private final long recoveredByMillis;

    FinishedStreak(long startedAtMillis, long headerMillis, long lastRefusedAfterMillis, long recoveredByMillis, boolean whilePaced) {
        super(startedAtMillis, headerMillis, whilePaced);
        this.lastRefusedAfterMillis = lastRefusedAfterMillis;
        this.recoveredByMillis = recoveredByMillis;
    }

    public static FinishedStreak of(long startedAtMillis, OptionalLong headerMillis, long lastRefusedAfterMillis,
                                    long recoveredByMillis, boolean whilePaced) {
        if (headerMillis.isPresent() && headerMillis.getAsLong() < 0 || lastRefusedAfterMillis < 0 || recoveredByMillis < 0) {
            throw new IllegalArgumentException("a streak's times count forward from its first refusal");
        }
        return new FinishedStreak(startedAtMillis, headerMillis.orElse(ObservationWindow.NO_HEADER), lastRefusedAfterMillis,
                recoveredByMillis, whilePaced);
    }

    /** When the last refused request of the streak went out, after the first refusal. */
    public long lastRefusedAfterMillis() {
        return lastRefusedAfterMillis;
    }

    /** When the request that got through went out, after the first refusal. */
    public long recoveredByMillis() {
        return recoveredByMillis;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof FinishedStreak)) {
            return false;
        }
        FinishedStreak other = (FinishedStreak) o;
        return sameStart(other) && lastRefusedAfterMillis == other.lastRefusedAfterMillis
                && recoveredByMillis == other.recoveredByMillis;
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
