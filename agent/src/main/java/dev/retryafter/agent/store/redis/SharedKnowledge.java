package dev.retryafter.agent.store.redis;

import java.util.Collections;
import java.util.List;

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
    private final List<StreakRecord> streaks;

    SharedKnowledge(long readAtMillis, long notBeforeMillis, long nextSlotMillis, long holdUntilMillis, String holdReason,
                    long holds, long refusals, Learned learned, List<StreakRecord> streaks) {
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

    /** Finished streaks, newest first, at most the capacity they were recorded with. */
    public List<StreakRecord> streaks() {
        return streaks;
    }

    /** The ceiling, the rate the pace was refused at and its cycle, and how long ago they were learned. */
    public static final class Learned {
        private final int ceiling;
        private final double refusedRate;
        private final long cycleMillis;
        private final long ageMillis;

        public Learned(int ceiling, double refusedRate, long cycleMillis, long ageMillis) {
            this.ceiling = ceiling;
            this.refusedRate = refusedRate;
            this.cycleMillis = cycleMillis;
            this.ageMillis = ageMillis;
        }

        public int ceiling() {
            return ceiling;
        }

        public double refusedRate() {
            return refusedRate;
        }

        public long cycleMillis() {
            return cycleMillis;
        }

        /** On Redis's clock, so it is the same for every reader whatever its own clock says. */
        public long ageMillis() {
            return ageMillis;
        }

        @Override
        public String toString() {
            return "Learned[ceiling=" + ceiling + ", refusedRate=" + refusedRate + ", cycle=" + cycleMillis + " ms, "
                    + ageMillis + " ms ago]";
        }
    }

    @Override
    public String toString() {
        return "SharedKnowledge[notBefore +" + (notBeforeMillis - readAtMillis) + " ms, next slot +"
                + (nextSlotMillis - readAtMillis) + " ms, hold +" + (holdUntilMillis - readAtMillis) + " ms, holds " + holds
                + ", refusals " + refusals + ", " + learned + ", " + streaks.size() + " streaks]";
    }
}
