package dev.retryafter.agent.engine.knowledge;

import dev.retryafter.agent.engine.learn.ObservationWindow;

import java.util.OptionalLong;

/**
 * The refusal streak in progress: from its first refusal until a request sent after it gets
 * through. Only its first refusal says where the limit is; the count sets the backoff's exponent,
 * whoever sends the next request. An immutable value.
 */
public final class OpenStreak extends Streak {

    private static final long serialVersionUID = HostKnowledge.VERSION;

    private final long lastRefusedSentMillis;
    private final int refusals;

    OpenStreak(long startedAtMillis, long headerMillis, long lastRefusedSentMillis, int refusals, boolean whilePaced) {
        super(startedAtMillis, headerMillis, whilePaced);
        this.lastRefusedSentMillis = lastRefusedSentMillis;
        this.refusals = refusals;
    }

    /** A streak as another store kept it. */
    public static OpenStreak of(long startedAtMillis, OptionalLong headerMillis, long lastRefusedSentMillis, int refusals,
                                boolean whilePaced) {
        if (refusals < 1 || headerMillis.isPresent() && headerMillis.getAsLong() < 0) {
            throw new IllegalArgumentException("an open streak has at least one refusal, and no negative header");
        }
        return new OpenStreak(startedAtMillis, headerMillis.orElse(ObservationWindow.NO_HEADER), lastRefusedSentMillis, refusals,
                whilePaced);
    }

    /** A refusal at {@code now} of a request sent at {@code sentAt} counted into this streak. */
    OpenStreak plus(long sentAt) {
        return new OpenStreak(startedAtMillis, headerMillis, Math.max(lastRefusedSentMillis, sentAt), refusals + 1, whilePaced);
    }

    /** The streak as it ends: a request sent at {@code sentAt} got through. */
    FinishedStreak finishedBy(long sentAt) {
        return new FinishedStreak(startedAtMillis, headerMillis, Math.max(0, lastRefusedSentMillis - startedAtMillis),
                sentAt - startedAtMillis, whilePaced);
    }

    /** When the latest refused request of the streak was sent. */
    public long lastRefusedSentMillis() {
        return lastRefusedSentMillis;
    }

    /** Refusals so far, this one included: at least 1. */
    public int refusals() {
        return refusals;
    }

    /** True for the refusal that opened the streak: the one that teaches. */
    public boolean isFirstRefusal() {
        return refusals == 1;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof OpenStreak)) {
            return false;
        }
        OpenStreak other = (OpenStreak) o;
        return sameStart(other) && lastRefusedSentMillis == other.lastRefusedSentMillis && refusals == other.refusals;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(startedAtMillis) * 31 + refusals;
    }

    @Override
    public String toString() {
        return "OpenStreak[at " + startedAtMillis + ", " + refusals + " refusals]";
    }
}
