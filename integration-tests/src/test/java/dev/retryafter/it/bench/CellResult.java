package dev.retryafter.it.bench;

import dev.retryafter.demo.portal.PortalStats;

/** The figures of one cell: a strategy, a portal, a number of workers. Portal counts are the portal's own. */
record CellResult(Scenario scenario, int threads, String strategy, int records, int fetched, int lost, int held,
                  boolean stalled, long elapsedMillis, long idealMillis, PortalStats portal,
                  long requestsAfterFirstWindow, long refusalsAfterFirstWindow, long longestSleepMillis,
                  Strategy.Learned learned) {

    /** Every record fetched before the cap: only then is the elapsed time a completion time. */
    boolean isComplete() {
        return !stalled && fetched == records;
    }

    double completionMinutes() {
        return elapsedMillis / 60_000.0;
    }

    double multipleOfIdeal() {
        return (double) elapsedMillis / idealMillis;
    }

    /**
     * Records fetched per minute over the real limit (its average where it doubles). A run that gave
     * records up ends early, so its rate counts only the time it kept going.
     */
    double efficiency() {
        double perMinute = fetched / completionMinutes();
        return perMinute / scenario.averageLimitPerMinute(records);
    }

    double refusalShare() {
        return portal.requests == 0 ? 0 : (double) portal.refusals / portal.requests;
    }

    double refusalShareAfterFirstWindow() {
        return requestsAfterFirstWindow == 0 ? 0 : (double) refusalsAfterFirstWindow / requestsAfterFirstWindow;
    }

    boolean isAgent() {
        return strategy.equals(Contender.AGENT);
    }
}
