package dev.retryafter.agent.engine;

import java.util.Arrays;

/**
 * A host's refusals by status, for the metrics' split of {@code refusals}: a status or two, so two
 * short arrays, sorted by status. Guarded by the host state's lock, as its other counters are.
 */
final class RefusalsByStatus {

    private static final int[] NO_STATUSES = {};
    private static final long[] NO_COUNTS = {};

    /** Shared empty arrays until the first refusal: most hosts are never refused. */
    private int[] statuses = NO_STATUSES;
    private long[] counts = NO_COUNTS;

    void add(int status) {
        int i = Arrays.binarySearch(statuses, status);
        if (i >= 0) {
            counts[i]++;
            return;
        }
        int at = -i - 1;
        int[] moreStatuses = new int[statuses.length + 1];
        long[] moreCounts = new long[counts.length + 1];
        System.arraycopy(statuses, 0, moreStatuses, 0, at);
        System.arraycopy(counts, 0, moreCounts, 0, at);
        moreStatuses[at] = status;
        moreCounts[at] = 1;
        System.arraycopy(statuses, at, moreStatuses, at + 1, statuses.length - at);
        System.arraycopy(counts, at, moreCounts, at + 1, counts.length - at);
        statuses = moreStatuses;
        counts = moreCounts;
    }

    /** {status, count} pairs, by status; empty when none. A copy. */
    long[][] pairs() {
        long[][] pairs = new long[statuses.length][];
        for (int i = 0; i < statuses.length; i++) {
            pairs[i] = new long[] {statuses[i], counts[i]};
        }
        return pairs;
    }
}
