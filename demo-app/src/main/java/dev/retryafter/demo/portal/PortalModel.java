package dev.retryafter.demo.portal;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * A portal's rate limit and the way its {@code Retry-After} lies, as a function of time: give it
 * the moment a request arrives and it answers with a status and a header. It knows no clock, so
 * the same model runs in virtual time (the engine's scenarios, the benchmarks) and behind a real
 * HTTP server (the demo). It counts what it receives, which makes it the ground truth of a run.
 *
 * <p>The limit is enforced over fixed windows, counted from the first request, the way most
 * portals count: {@code limit} admitted requests per window; refused requests do not count.
 * Threadsafe.
 */
public final class PortalModel {

    /** What a Retry-After on a 200 says on the portal that sends one there. */
    public static final String HEADER_ON_SUCCESS = "120";

    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

    private final Behaviour behaviour;
    private final int limit;
    private final long windowMillis;
    private final long changeAfterMillis;
    private final Random random;

    // Guarded by this.
    private long origin = Long.MIN_VALUE;
    private long windowIndex = -1;
    private int admittedInWindow;
    private final PortalStats stats = new PortalStats();
    private final Map<String, Long> lastRefusalByWorker = new HashMap<>();
    private final Map<String, Long> lastRequestByWorker = new HashMap<>();
    private long lastRefusal = Long.MIN_VALUE;

    /**
     * @param limit             requests admitted per window (doubled after the change for {@link Behaviour#LIMIT_DOUBLES})
     * @param changeAfterMillis when, after the first request, a drifting portal changes its ways
     */
    public PortalModel(Behaviour behaviour, int limit, long windowMillis, long changeAfterMillis, long seed) {
        if (limit < 1 || windowMillis < 1) {
            throw new IllegalArgumentException("a portal admits at least one request per window of at least 1 ms");
        }
        this.behaviour = behaviour;
        this.limit = limit;
        this.windowMillis = windowMillis;
        this.changeAfterMillis = changeAfterMillis;
        this.random = new Random(seed);
    }

    public PortalModel(Behaviour behaviour, int limit, long windowMillis) {
        this(behaviour, limit, windowMillis, Long.MAX_VALUE, 42);
    }

    /** A request from {@code worker} (any name; null for "unknown") arrives at {@code now}. */
    public synchronized Reply handle(long now, String worker) {
        if (origin == Long.MIN_VALUE) {
            origin = now;
        }
        stats.requests++;
        noteGapAfterRefusal(now, worker);
        long elapsed = now - origin;
        long index = elapsed / windowMillis;
        if (index != windowIndex) {
            windowIndex = index;
            admittedInWindow = 0;
        }
        boolean changed = elapsed >= changeAfterMillis;
        int currentLimit = behaviour == Behaviour.LIMIT_DOUBLES && changed ? limit * 2 : limit;
        if (admittedInWindow < currentLimit) {
            admittedInWindow++;
            stats.admitted++;
            return new Reply(200, behaviour == Behaviour.HEADER_ON_SUCCESS ? HEADER_ON_SUCCESS : null);
        }
        stats.refusals++;
        lastRefusal = now;
        if (worker != null) {
            lastRefusalByWorker.put(worker, now);
        }
        long untilReset = origin + (index + 1) * windowMillis - now;
        int status = behaviour == Behaviour.SERVICE_UNAVAILABLE ? 503 : 429;
        return new Reply(status, refusalHeader(now, untilReset, changed));
    }

    private String refusalHeader(long now, long untilReset, boolean changed) {
        switch (behaviour) {
            case ALWAYS_ZERO:
                return "0";
            case CONSTANT_OVERSTATED:
                return "3600";
            case UNRELIABLE:
                return Long.toString(random.nextInt((int) Math.max(2, 2 * windowMillis / 1000) + 1));
            case ABSENT:
                return null;
            case PAST_DATE:
                return IMF_FIXDATE.format(Instant.ofEpochMilli(now - 3_600_000L));
            case DRIFTS_TO_CONSTANT:
                return changed ? "3600" : secondsUntil(untilReset);
            default: // TRUTHFUL, HEADER_ON_SUCCESS, SERVICE_UNAVAILABLE, LIMIT_DOUBLES
                return secondsUntil(untilReset);
        }
    }

    /** Whole seconds, rounded up: waiting that long always reaches the next window. */
    private static String secondsUntil(long millis) {
        return Long.toString((millis + 999) / 1000);
    }

    private void noteGapAfterRefusal(long now, String worker) {
        if (lastRefusal != Long.MIN_VALUE) {
            stats.noteGapAfterAnyRefusal(now - lastRefusal);
            lastRefusal = Long.MIN_VALUE;
        }
        if (worker != null) {
            Long refusedAt = lastRefusalByWorker.remove(worker);
            if (refusedAt != null) {
                stats.noteGapAfterOwnRefusal(now - refusedAt);
            }
            Long previous = lastRequestByWorker.put(worker, now);
            if (previous != null) {
                stats.noteGapBetweenOwnRequests(now - previous);
            }
        }
    }

    public synchronized PortalStats stats() {
        return stats.copy();
    }

    public Behaviour behaviour() {
        return behaviour;
    }

    /** Requests admitted per window, before any change. */
    public int limit() {
        return limit;
    }

    public long windowMillis() {
        return windowMillis;
    }

    /** What the portal answers: a status and its Retry-After, null when it sends none. */
    public static final class Reply {
        public final int status;
        public final String retryAfter;

        Reply(int status, String retryAfter) {
            this.status = status;
            this.retryAfter = retryAfter;
        }

        public boolean isRefusal() {
            return status == 429 || status == 503;
        }

        @Override
        public String toString() {
            return status + (retryAfter == null ? "" : " Retry-After: " + retryAfter);
        }
    }
}
