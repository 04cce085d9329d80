package dev.retryafter.agent.store.redis;

import java.util.Collections;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What the fleet knows of one host, as one read found it. Moments are on the reader's own clock:
 * Redis answered with how far each lay from its now, and the reader added that to its own now when
 * the answer came, so a moment is never earlier than Redis meant (it may be later by the trip back).
 * A moment that has passed, or was never set, reads as the moment of the read.
 */
public final class SharedKnowledge {

    private final long readAtMillis;
    private final long notBeforeMillis;
    private final long nextSlotMillis;
    private final long holdUntilMillis;
    private final String holdReason;
    private final long holds;
    private final long refusals;
    private final Learned learned;
    private final OpenStreak openStreak;
    private final List<StreakRecord> streaks;
    private final OptionalLong costsSinceAgoMillis;

    SharedKnowledge(long readAtMillis, long notBeforeMillis, long nextSlotMillis, long holdUntilMillis, String holdReason,
                    long holds, long refusals, Learned learned, OpenStreak openStreak, List<StreakRecord> streaks,
                    OptionalLong costsSinceAgoMillis) {
        this.openStreak = openStreak;
        this.costsSinceAgoMillis = costsSinceAgoMillis;
        this.readAtMillis = readAtMillis;
        this.notBeforeMillis = notBeforeMillis;
        this.nextSlotMillis = nextSlotMillis;
        this.holdUntilMillis = holdUntilMillis;
        this.holdReason = holdReason;
        this.holds = holds;
        this.refusals = refusals;
        this.learned = learned;
        this.streaks = Collections.unmodifiableList(streaks);
    }

    public long readAtMillis() {
        return readAtMillis;
    }

    /** No request to the host before this, by any JVM of the fleet. */
    public long notBeforeMillis() {
        return notBeforeMillis;
    }

    /** The shared schedule's next free slot. */
    public long nextSlotMillis() {
        return nextSlotMillis;
    }

    public boolean isHeld() {
        return holdUntilMillis > readAtMillis;
    }

    public long holdUntilMillis() {
        return holdUntilMillis;
    }

    /** Why the host is held; empty when it is not. */
    public String holdReason() {
        return isHeld() ? holdReason : "";
    }

    /** Holds the fleet has begun on this host. */
    public long holds() {
        return holds;
    }

    /** Refusals the fleet has reported for this host. */
    public long refusals() {
        return refusals;
    }

    /** What the fleet last learned, or null when it has learned nothing yet. */
    public Learned learned() {
        return learned;
    }

    /** The fleet's refusal streak in progress, or null when none is open. */
    public OpenStreak openStreak() {
        return openStreak;
    }

    /** How long ago the fleet's costs-since moment was; empty when it has none. */
    public OptionalLong costsSinceAgoMillis() {
        return costsSinceAgoMillis;
    }

    /** Finished streaks, newest first, at most the capacity they were recorded with. */
    public List<StreakRecord> streaks() {
        return streaks;
    }

    /**
     * The ceiling (empty: none learned), the rate the pace was refused at (0: no pace), its cycle,
     * how long ago its curve began, and how long ago all this was learned. Ages are by Redis's
     * clock, so they are the same for every reader whatever its own clock says.
     */
    public static final class Learned {
        private final OptionalInt ceiling;
        private final double refusedRate;
        private final long cycleMillis;
        private final long epochAgoMillis;
        private final long ageMillis;

        Learned(OptionalInt ceiling, double refusedRate, long cycleMillis, long epochAgoMillis, long ageMillis) {
            this.ceiling = ceiling;
            this.refusedRate = refusedRate;
            this.cycleMillis = cycleMillis;
            this.epochAgoMillis = epochAgoMillis;
            this.ageMillis = ageMillis;
        }

        public OptionalInt ceiling() {
            return ceiling;
        }

        public double refusedRate() {
            return refusedRate;
        }

        public long cycleMillis() {
            return cycleMillis;
        }

        public long epochAgoMillis() {
            return epochAgoMillis;
        }

        public long ageMillis() {
            return ageMillis;
        }

        @Override
        public String toString() {
            return "Learned[ceiling=" + ceiling + ", refusedRate=" + refusedRate + ", cycle=" + cycleMillis + " ms, epoch "
                    + epochAgoMillis + " ms ago, " + ageMillis + " ms ago]";
        }
    }

    /** The fleet's streak in progress: begun {@code ageMillis} ago, with the first refusal's header. */
    public static final class OpenStreak {
        private final long ageMillis;
        private final OptionalLong headerMillis;
        private final long lastRefusedSentAgoMillis;
        private final int refusals;
        private final boolean whilePaced;

        OpenStreak(long ageMillis, OptionalLong headerMillis, long lastRefusedSentAgoMillis, int refusals, boolean whilePaced) {
            this.ageMillis = ageMillis;
            this.headerMillis = headerMillis;
            this.lastRefusedSentAgoMillis = lastRefusedSentAgoMillis;
            this.refusals = refusals;
            this.whilePaced = whilePaced;
        }

        public long ageMillis() {
            return ageMillis;
        }

        public OptionalLong headerMillis() {
            return headerMillis;
        }

        public long lastRefusedSentAgoMillis() {
            return lastRefusedSentAgoMillis;
        }

        public int refusals() {
            return refusals;
        }

        public boolean whilePaced() {
            return whilePaced;
        }
    }

    @Override
    public String toString() {
        return "SharedKnowledge[notBefore +" + (notBeforeMillis - readAtMillis) + " ms, next slot +"
                + (nextSlotMillis - readAtMillis) + " ms, hold +" + (holdUntilMillis - readAtMillis) + " ms, holds " + holds
                + ", refusals " + refusals + ", " + learned + ", " + streaks.size() + " streaks]";
    }
}
