package dev.retryafter.it.cost;

import java.util.Collections;
import java.util.List;

/** Median and range of a handful of measurements; the median, because one disturbed run must not move the figure. */
final class Stats {

    private Stats() {
    }

    /** The middle value; the mean of the middle two for an even count. */
    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        if (n == 0) {
            return Double.NaN;
        }
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    static double min(List<Double> values) {
        return values.isEmpty() ? Double.NaN : Collections.min(values);
    }

    static double max(List<Double> values) {
        return values.isEmpty() ? Double.NaN : Collections.max(values);
    }
}
