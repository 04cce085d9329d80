package dev.retryafter.agent.engine.learn;

import dev.retryafter.agent.engine.Category;

/** A host's category and the evidence for it: the median of measured recovery over header. */
public final class Characterisation {

    static final Characterisation UNKNOWN = new Characterisation(Category.UNKNOWN, Double.NaN);

    private final Category category;
    private final double medianRatio;

    Characterisation(Category category, double medianRatio) {
        this.category = category;
        this.medianRatio = medianRatio;
    }

    public Category category() {
        return category;
    }

    /** Recovery divided by header, median over the window; empty when no refusal carried a header. */
    public java.util.OptionalDouble medianRatio() {
        return Double.isNaN(medianRatio) ? java.util.OptionalDouble.empty() : java.util.OptionalDouble.of(medianRatio);
    }

    /** The median, NaN when none: for arithmetic inside the engine. */
    public double rawMedianRatio() {
        return medianRatio;
    }

    /** The guide's alert: the evidence moved by more than a factor of two, whatever the category says. */
    public boolean medianMovedFarFrom(Characterisation before) {
        if (Double.isNaN(medianRatio) || Double.isNaN(before.medianRatio)) {
            return false;
        }
        double low = Math.max(Math.min(medianRatio, before.medianRatio), 1e-9);
        return Math.max(medianRatio, before.medianRatio) / low > 2.0;
    }

    @Override
    public String toString() {
        return category.label() + (Double.isNaN(medianRatio) ? "" : String.format(" (median ratio %.3g)", medianRatio));
    }
}
