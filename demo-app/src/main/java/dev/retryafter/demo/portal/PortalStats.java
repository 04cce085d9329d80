package dev.retryafter.demo.portal;

/** What a portal received: its own count, which is the ground truth of a run. Not threadsafe; copies are. */
public final class PortalStats {

    public long requests;
    public long admitted;
    public long refusals;
    /** The shortest time from a refusal to the next request to arrive from anyone; -1 if none followed one. */
    public long shortestGapAfterAnyRefusalMillis = -1;
    /** The shortest time from a refusal to the same worker's next request; -1 if none. */
    public long shortestGapAfterOwnRefusalMillis = -1;
    /**
     * The longest time between two requests from the same worker: how long a client waited before
     * coming back, measured at the portal. -1 until a worker has sent two.
     */
    public long longestGapBetweenOwnRequestsMillis = -1;
    /** The most requests the portal was handling at once (only an HTTP front counts this). */
    public int peakInFlight;

    void noteGapAfterAnyRefusal(long gap) {
        shortestGapAfterAnyRefusalMillis = shortestGapAfterAnyRefusalMillis < 0 ? gap : Math.min(shortestGapAfterAnyRefusalMillis, gap);
    }

    void noteGapAfterOwnRefusal(long gap) {
        shortestGapAfterOwnRefusalMillis = shortestGapAfterOwnRefusalMillis < 0 ? gap : Math.min(shortestGapAfterOwnRefusalMillis, gap);
    }

    void noteGapBetweenOwnRequests(long gap) {
        longestGapBetweenOwnRequestsMillis = Math.max(longestGapBetweenOwnRequestsMillis, gap);
    }

    PortalStats copy() {
        PortalStats copy = new PortalStats();
        copy.requests = requests;
        copy.admitted = admitted;
        copy.refusals = refusals;
        copy.shortestGapAfterAnyRefusalMillis = shortestGapAfterAnyRefusalMillis;
        copy.shortestGapAfterOwnRefusalMillis = shortestGapAfterOwnRefusalMillis;
        copy.longestGapBetweenOwnRequestsMillis = longestGapBetweenOwnRequestsMillis;
        copy.peakInFlight = peakInFlight;
        return copy;
    }

    @Override
    public String toString() {
        return "requests=" + requests + " admitted=" + admitted + " refusals=" + refusals
                + " gapAfterRefusal=" + shortestGapAfterAnyRefusalMillis + "ms ownGap=" + shortestGapAfterOwnRefusalMillis + "ms longestOwnGap=" + longestGapBetweenOwnRequestsMillis
                + "ms peakInFlight=" + peakInFlight;
    }
}
