package dev.retryafter.agent.engine.learn;

import dev.retryafter.agent.engine.Category;
import dev.retryafter.agent.engine.knowledge.HostKnowledge;

import java.util.Arrays;

/**
 * Which kind of liar is this host? The guide's rules, applied to the observation window:
 * <ul>
 *   <li>no refusal carried a usable header: {@link Category#ABSENT};</li>
 *   <li>every header said 0: {@link Category#ALWAYS_ZERO};</li>
 *   <li>one value only, and recovery under a tenth of it: {@link Category#CONSTANT_OVERSTATED}; so is a
 *       host whose last two streaks both did, because a portal that drifts into a constant should
 *       not cost a wait at the ceiling for every observation still in the window;</li>
 *   <li>median recovery/header within [0.5, 2], the ratios consistent across streaks ({@link #consistent}), and the
 *       header never caught naming two moments to one streak ({@link HostKnowledge#retryAfterDistrusted()}):
 *       {@link Category#TRUTHFUL};</li>
 *   <li>anything else: {@link Category#UNRELIABLE}.</li>
 * </ul>
 * Given the host's period (how long its limit took to have room again, learned at the end of its first
 * streak), no recovery is read as longer than it: a limit counted per period has room again once a streak
 * is a period old, so a header that names more overstates the wait, whatever the streak alone could show.
 */
public final class HostCharacteriser {

    /** The guide's bounds. A ratio measures how far the header was from the wait the host really needed. */
    static final double TRUTHFUL_LOW = 0.5;
    static final double TRUTHFUL_HIGH = 2.0;
    static final double OVERSTATED_BELOW = 0.1;
    /**
     * A truthful header's ratios agree across streaks within this factor (the guide alerts when the median
     * moves by more than two). A header drawn at random and waited out reads 1 on every streak; bounded by
     * the period, it reads less on each streak whose header named more, and the spread shows it where the
     * median, still in the band, does not.
     */
    static final double CONSISTENT_WITHIN = 2.0;
    /**
     * From this many streaks with a header, the newest is forgiven if it alone is odd and reads low: a portal
     * drifting into a constant, which two such streaks make constant overstated. One that reads high (a
     * header too short: the guide's "sometimes too fast") is never forgiven.
     */
    static final int FORGIVES_ONE_FROM = 4;

    private HostCharacteriser() {
    }

    public static Characterisation characterise(ObservationWindow window) {
        return characterise(window, 0);
    }

    /** As {@link #characterise(ObservationWindow)}, no recovery read as longer than {@code periodMillis} (0: unknown). */
    public static Characterisation characterise(ObservationWindow window, long periodMillis) {
        return characterise(window, periodMillis, false);
    }

    /** As {@link #characterise(ObservationWindow, long)}; {@code distrusted}: the header contradicted itself once, never truthful. */
    public static Characterisation characterise(ObservationWindow window, long periodMillis, boolean distrusted) {
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
            ratios[withHeader++] = ratio(window, i, periodMillis);
        }
        if (withHeader == 0) {
            return new Characterisation(Category.ABSENT, Double.NaN);
        }
        boolean consistent = consistent(ratios, withHeader);
        Arrays.sort(ratios, 0, withHeader);
        double median = ratios[withHeader / 2];
        if (allZero) {
            return new Characterisation(Category.ALWAYS_ZERO, median);
        }
        if ((oneValue && median < OVERSTATED_BELOW) || lastTwoOverstatedAlike(window)) {
            return new Characterisation(Category.CONSTANT_OVERSTATED, median);
        }
        if (median >= TRUTHFUL_LOW && median <= TRUTHFUL_HIGH && consistent && !distrusted) {
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

    /**
     * The first {@code n} ratios, newest first, agree within {@link #CONSISTENT_WITHIN}; from
     * {@link #FORGIVES_ONE_FROM} streaks on, the newest may be the odd one if it reads low (an older odd
     * one, or one that reads high, is evidence).
     */
    static boolean consistent(double[] newestFirst, int n) {
        if (within(newestFirst, 0, n)) {
            return true;
        }
        return n >= FORGIVES_ONE_FROM && within(newestFirst, 1, n) && newestFirst[0] < lowest(newestFirst, 1, n);
    }

    private static boolean within(double[] ratios, int from, int to) {
        double high = 0;
        for (int i = from; i < to; i++) {
            high = Math.max(high, ratios[i]);
        }
        return to - from < 2 || high <= CONSISTENT_WITHIN * Math.max(lowest(ratios, from, to), 1e-9);
    }

    private static double lowest(double[] ratios, int from, int to) {
        double low = Double.MAX_VALUE;
        for (int i = from; i < to; i++) {
            low = Math.min(low, ratios[i]);
        }
        return low;
    }

    private static double ratio(ObservationWindow window, int i) {
        return ratio(window, i, 0);
    }

    private static double ratio(ObservationWindow window, int i, long periodMillis) {
        long recovery = window.recovery(i);
        if (periodMillis > 0) {
            recovery = Math.min(recovery, Math.max(periodMillis, window.lastRefused(i)));
        }
        // max(header, 1 ms) as the guide does: a header of 0 gives a huge ratio, never a division by zero.
        return (double) recovery / Math.max(window.header(i), 1L);
    }
}
