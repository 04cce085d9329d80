package dev.retryafter.agent.engine;

import java.util.Arrays;

/**
 * Which kind of liar is this host? The guide's rules, applied to the observation window:
 * <ul>
 *   <li>no refusal carried a usable header: {@link Category#ABSENT};</li>
 *   <li>every header said 0: {@link Category#ALWAYS_ZERO};</li>
 *   <li>one value only, and recovery under a tenth of it: {@link Category#CONSTANT_OVERSTATED}; so is a
 *       host whose last two streaks both did, because a portal that drifts into a constant should
 *       not cost a wait at the ceiling for every observation still in the window;</li>
 *   <li>median recovery/header within [0.5, 2]: {@link Category#TRUTHFUL};</li>
 *   <li>anything else: {@link Category#UNRELIABLE}.</li>
 * </ul>
 */
final class HostCharacteriser {

    /** The guide's bounds. A ratio measures how far the header was from the wait the host really needed. */
    static final double TRUTHFUL_LOW = 0.5;
    static final double TRUTHFUL_HIGH = 2.0;
    static final double OVERSTATED_BELOW = 0.1;

    private HostCharacteriser() {
    }

    static Characterisation characterise(ObservationWindow window) {
        if (window.size() == 0) {
            return Characterisation.UNKNOWN;
        }
        double[] ratios = new double[window.size()];
        int withHeader = 0;
        boolean allZero = true;
        boolean oneValue = true;
        long firstValue = ObservationWindow.NO_HEADER;
        for (int i = 0; i < window.size(); i++) {
            long header = window.header(i);
            if (header == ObservationWindow.NO_HEADER) {
                continue;
            }
            if (withHeader == 0) {
                firstValue = header;
            }
            allZero &= header == 0;
            oneValue &= header == firstValue;
            ratios[withHeader++] = ratio(window, i);
        }
        if (withHeader == 0) {
            return new Characterisation(Category.ABSENT, Double.NaN);
        }
        Arrays.sort(ratios, 0, withHeader);
        double median = ratios[withHeader / 2];
        if (allZero) {
            return new Characterisation(Category.ALWAYS_ZERO, median);
        }
        if ((oneValue && median < OVERSTATED_BELOW) || lastTwoOverstatedAlike(window)) {
            return new Characterisation(Category.CONSTANT_OVERSTATED, median);
        }
        if (median >= TRUTHFUL_LOW && median <= TRUTHFUL_HIGH) {
            return new Characterisation(Category.TRUTHFUL, median);
        }
        return new Characterisation(Category.UNRELIABLE, median);
    }

    private static boolean lastTwoOverstatedAlike(ObservationWindow window) {
        if (window.size() < 2 || window.header(0) <= 0 || window.header(0) != window.header(1)) {
            return false;
        }
        return ratio(window, 0) < OVERSTATED_BELOW && ratio(window, 1) < OVERSTATED_BELOW;
    }

    private static double ratio(ObservationWindow window, int i) {
        // max(header, 1 ms) as the guide does: a header of 0 gives a huge ratio, never a division by zero.
        return (double) window.recovery(i) / Math.max(window.header(i), 1L);
    }
}
