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

    /**
     * A delta-seconds header is rounded to the second, by the portal's clock: two truthful headers naming one moment
     * may differ by up to this much.
     */
    public static final long HEADER_ROUNDING_MILLIS = 2_000;

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

    /**
     * Why the refusal at {@code now}, of a request sent at {@code sentAt}, told {@code header}, contradicts the streak's
     * first; null when it does not. A truthful header names when the limit has room: the same moment to every refusal of
     * a streak, give or take its rounding to the second and, for a limiter that counts refusals too, the time between
     * them. A header drawn at random names another to each, and refusals in flight at once show it in the host's first
     * streak. Only a request sent before the moment the first refusal named is compared: one sent at or after it may
     * meet the next window, whose refusal, if it comes back before the successes that end the streak, is rightly told
     * another moment (a header that named too short a wait is the ratio's to catch).
     */
    String contradiction(long now, long sentAt, OptionalLong header) {
        if (!header.isPresent() || headerMillis == ObservationWindow.NO_HEADER || sentAt >= startedAtMillis + headerMillis) {
            return null;
        }
        long apart = Math.abs(now + header.getAsLong() - (startedAtMillis + headerMillis));
        long between = Math.abs(now - startedAtMillis);
        return apart <= HEADER_ROUNDING_MILLIS + between ? null
                : "Retry-After named moments " + seconds(apart) + " apart to two refusals " + seconds(between) + " apart";
    }

    /** Tenths of a second, rounded half up, as the Redis store's script writes them: "10.1s". */
    private static String seconds(long millis) {
        long tenths = (millis + 50) / 100;
        return tenths / 10 + "." + tenths % 10 + "s";
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
