package dev.retryafter.agent.engine.learn;

import dev.retryafter.agent.engine.knowledge.FinishedStreak;
import dev.retryafter.agent.engine.knowledge.HostKnowledge;

/**
 * The most recent refusal streaks of one host: what the first refusal's header said, when the
 * last refused request of the streak went out, and when the request that got through went out,
 * both counted from the first refusal. Bounded, oldest overwritten first, so the category follows
 * a portal that changes its ways. Not thread-safe: the host state guards it.
 */
public final class ObservationWindow {

    /** Marks a streak whose first refusal carried no usable header. */
    public static final long NO_HEADER = -1;

    /**
     * Five streaks: few enough that a portal which changes its ways is re-characterised within a
     * handful of refusals, enough that one odd streak does not flip the median.
     */
    public static final int CAPACITY = 5;

    private final long[] headerMillis = new long[CAPACITY];
    private final long[] lastRefusedMillis = new long[CAPACITY];
    private final long[] recoveredByMillis = new long[CAPACITY];
    private final boolean[] paced = new boolean[CAPACITY];
    private int size;
    private int newest = -1;

    /**
     * The window of {@code newestFirst} streaks, as {@link HostKnowledge} keeps them: the cost of a
     * streak begun before {@code costsSince} is forgotten, as {@link #forgetCosts()} would have.
     */
    public static ObservationWindow of(java.util.List<FinishedStreak> newestFirst, long costsSince) {
        ObservationWindow window = new ObservationWindow();
        for (int i = Math.min(newestFirst.size(), CAPACITY) - 1; i >= 0; i--) {
            FinishedStreak s = newestFirst.get(i);
            window.add(s.rawHeaderMillis(), s.lastRefusedAfterMillis(), s.recoveredByMillis(),
                    s.whilePaced() && s.startedAtMillis() >= costsSince);
        }
        return window;
    }

    /** {@code whilePaced}: the streak began while the host was paced, not in an unpaced first burst. */
    void add(long header, long lastRefused, long recoveredBy, boolean whilePaced) {
        newest = (newest + 1) % CAPACITY;
        headerMillis[newest] = header;
        lastRefusedMillis[newest] = lastRefused;
        recoveredByMillis[newest] = recoveredBy;
        paced[newest] = whilePaced;
        size = Math.min(size + 1, CAPACITY);
    }

    int size() {
        return size;
    }

    /** The header of the i-th most recent observation (0 is the newest); {@link #NO_HEADER} if none. */
    long header(int i) {
        return headerMillis[slot(i)];
    }

    /** When the i-th most recent streak's last refused request went out, after its first refusal. */
    long lastRefused(int i) {
        return lastRefusedMillis[slot(i)];
    }

    /**
     * How long the host really took to recover, read as favourably to the header as the evidence
     * allows. Recovery is only known to lie after the last refused request and no later than the
     * one that got through: if the header falls in that interval, nothing contradicts it and it is
     * taken as the recovery; otherwise the middle of the interval is. Measuring to the success
     * alone would blame the header for waits the engine added itself (pacing, the floor).
     */
    long recovery(int i) {
        int s = slot(i);
        long header = headerMillis[s];
        long low = lastRefusedMillis[s];
        long high = recoveredByMillis[s];
        if (header > low && header <= high) {
            return header;
        }
        return low + (high - low) / 2;
    }

    /**
     * What a refusal costs when the pace probes too high: the time from a streak's first refusal to
     * the request that got through, over streaks that began while the host was paced (an unpaced
     * first burst waits out the rest of its window, which says nothing about that). The smaller of
     * the median and the latest: the median stops one odd streak from deciding, the latest follows a
     * host whose ways have changed. 0 when nothing is known.
     */
    public long pacedRefusalCost() {
        long[] costs = new long[size];
        int n = 0;
        long latest = -1;
        for (int i = 0; i < size; i++) { // newest first
            int s = slot(i);
            if (paced[s]) {
                costs[n++] = recoveredByMillis[s];
                if (latest < 0) {
                    latest = recoveredByMillis[s];
                }
            }
        }
        if (n == 0) {
            return 0;
        }
        java.util.Arrays.sort(costs, 0, n);
        return Math.min(costs[n / 2], latest);
    }

    /** The host's category changed: costs measured while it was answered the old way say nothing now. */
    void forgetCosts() {
        java.util.Arrays.fill(paced, false);
    }

    private int slot(int i) {
        return Math.floorMod(newest - i, CAPACITY);
    }
}
