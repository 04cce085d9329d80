package dev.retryafter.demo;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;

/**
 * The town of lying portals the demo scrapes: every behaviour, each with its own limit, on
 * two-second windows so that a whole run takes seconds, not hours.
 */
final class DemoPortals {

    static final long WINDOW_MILLIS = 2_000;

    private DemoPortals() {
    }

    /** Requests each portal admits per window: like county portals, they differ. */
    static int limit(Behaviour behaviour) {
        switch (behaviour) {
            case ALWAYS_ZERO:
            case PAST_DATE:
                return 10;
            case CONSTANT_OVERSTATED:
            case DRIFTS_TO_CONSTANT:
                return 8;
            case ABSENT:
                return 6;
            case LIMIT_DOUBLES:
                return 5;
            default:
                return 12;
        }
    }

    /** A fresh portal; a drifting one changes its ways half-way through {@code records}. */
    static PortalModel create(Behaviour behaviour, int records) {
        long idealMillis = records * WINDOW_MILLIS / limit(behaviour);
        return new PortalModel(behaviour, limit(behaviour), WINDOW_MILLIS, idealMillis / 2, 7);
    }
}
