package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.learn.Characterisation;

import java.util.Locale;

/**
 * A host's characterisation before and after a refusal streak ended, or a refusal that caught its header contradicting
 * itself, and the evidence.
 */
public final class CharacterisationChange {

    private final Characterisation before;
    private final Characterisation after;
    private final String evidence;

    /** At a streak's end, which took {@code recoveryMillis} from its first refusal to the success that ended it. */
    CharacterisationChange(Characterisation before, Characterisation after, long recoveryMillis) {
        this(before, after, String.format(Locale.ROOT, "recovery took %.1fs", recoveryMillis / 1000.0));
    }

    /** On the evidence {@code evidence}, in words. */
    CharacterisationChange(Characterisation before, Characterisation after, String evidence) {
        this.before = before;
        this.after = after;
        this.evidence = evidence;
    }

    public Characterisation before() {
        return before;
    }

    public Characterisation after() {
        return after;
    }

    /** What showed it, in words: how long the streak took to recover, or the header's contradiction. */
    public String evidence() {
        return evidence;
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
