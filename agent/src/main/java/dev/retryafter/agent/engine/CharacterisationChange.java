package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.learn.Characterisation;

/** A host's characterisation before and after a refusal streak ended, and that streak's recovery. */
public final class CharacterisationChange {

    private final Characterisation before;
    private final Characterisation after;
    private final long recoveryMillis;

    CharacterisationChange(Characterisation before, Characterisation after, long recoveryMillis) {
        this.before = before;
        this.after = after;
        this.recoveryMillis = recoveryMillis;
    }

    public Characterisation before() {
        return before;
    }

    public Characterisation after() {
        return after;
    }

    /** From the streak's first refusal to the success that ended it. */
    public long recoveryMillis() {
        return recoveryMillis;
    }

    /** A real change of category, not the first one learned: the guide says to alert on it. */
    public boolean isCategoryChange() {
        return before.category() != Category.UNKNOWN && before.category() != after.category();
    }

    /** The median ratio moved by more than a factor of two: the guide's other alert. */
    public boolean isMedianShift() {
        return after.medianMovedFarFrom(before);
    }
}
