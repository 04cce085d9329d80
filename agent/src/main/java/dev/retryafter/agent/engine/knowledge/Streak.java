package dev.retryafter.agent.engine.knowledge;

import dev.retryafter.agent.engine.learn.ObservationWindow;

import java.io.Serializable;
import java.util.OptionalLong;

/**
 * What every refusal streak has, open ({@link OpenStreak}) or over ({@link FinishedStreak}): the moment of its first
 * refusal, what that refusal's header asked for, and whether the host was paced when it began.
 */
public abstract class Streak implements Serializable {

    private static final long serialVersionUID = HostKnowledge.VERSION;

    final long startedAtMillis;
    /** {@link ObservationWindow#NO_HEADER} when the first refusal had no usable header. */
    final long headerMillis;
    final boolean whilePaced;

    Streak(long startedAtMillis, long headerMillis, boolean whilePaced) {
        this.startedAtMillis = startedAtMillis;
        this.headerMillis = headerMillis;
        this.whilePaced = whilePaced;
    }

    /** The moment of the streak's first refusal. */
    public long startedAtMillis() {
        return startedAtMillis;
    }

    /** What the first refusal's {@code Retry-After} asked for; empty when it carried no usable one. */
    public OptionalLong headerMillis() {
        return headerMillis == ObservationWindow.NO_HEADER ? OptionalLong.empty() : OptionalLong.of(headerMillis);
    }

    public long rawHeaderMillis() {
        return headerMillis;
    }

    /** The streak began while the host was paced, not in an unpaced first burst. */
    public boolean whilePaced() {
        return whilePaced;
    }

    /** The same first refusal, header and pacing as {@code other}'s. */
    final boolean sameStart(Streak other) {
        return startedAtMillis == other.startedAtMillis && headerMillis == other.headerMillis && whilePaced == other.whilePaced;
    }
}
