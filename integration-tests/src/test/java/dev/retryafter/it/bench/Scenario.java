package dev.retryafter.it.bench;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;

/** One portal: how its Retry-After lies, and the limit it really enforces per 60-second window. */
record Scenario(Behaviour behaviour, int limitPerWindow) {

    static final long WINDOW_MILLIS = 60_000;

    /** A fresh portal for one cell: every strategy meets the same behaviour, change and random header. */
    PortalModel portal(int records, long seed) {
        return new PortalModel(behaviour, limitPerWindow, WINDOW_MILLIS, changeAfterMillis(records), seed);
    }

    /** "Half-way": half the ideal time at the starting limit, for every behaviour, though only two change. */
    long changeAfterMillis(int records) {
        return records * WINDOW_MILLIS / limitPerWindow / 2;
    }

    /**
     * The fastest the portal allows, at its real limit throughout: {@code records / limit} windows,
     * or, where the limit doubles, the first half at the limit and the rest at twice it.
     */
    long idealMillis(int records) {
        if (behaviour != Behaviour.LIMIT_DOUBLES) {
            return records * WINDOW_MILLIS / limitPerWindow;
        }
        long change = changeAfterMillis(records);
        double beforeChange = (double) limitPerWindow * change / WINDOW_MILLIS;
        return change + (long) ((records - beforeChange) * WINDOW_MILLIS / (2.0 * limitPerWindow));
    }

    /** The limit a run at the ideal pace sees on average: the limit itself, unless it changes. */
    double averageLimitPerMinute(int records) {
        return records * 60_000.0 / idealMillis(records);
    }

    /** The limit as the table shows it. */
    String limitLabel() {
        return behaviour == Behaviour.LIMIT_DOUBLES ? limitPerWindow + "→" + 2 * limitPerWindow : Integer.toString(limitPerWindow);
    }
}
