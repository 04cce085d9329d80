package dev.retryafter.it.bench;

import java.util.List;
import java.util.Random;
import java.util.function.LongFunction;

/**
 * One portal of the limiter benchmark: the shape of its limiter, the status and {@code Retry-After}
 * it refuses with, how long it takes to answer a request it lets through, and the fastest any client
 * could fetch N records from it ({@link #idealMillis}).
 *
 * @param limiter        a fresh limiter whose windows start at the given moment (the first request's)
 * @param rate           the sustained rate it allows, requests per second
 * @param burst          what it lets through at once from rest, beyond the rate
 * @param firstPeriod    how long its first window lasts: refusals after it are the learner's
 * @param lateStart      a late start: how long the portal refuses everyone before its first window with room
 * @param changeAfter    when the limit changes (to {@code laterRate}), after the first request; never: Long.MAX_VALUE
 * @param windowTarget   a fixed or rolling window, whose efficiency target is higher
 */
record LimiterShape(String name, LongFunction<Limiter> limiter, double rate, int burst, int inFlight, long serviceMillis,
                    int status, Header header, long firstPeriod, long lateStart, long changeAfter, double laterRate,
                    boolean windowTarget) {

    /** What the portal says in {@code Retry-After} when it refuses. */
    enum Header {
        NONE, ZERO, CONSTANT_3600, TRUTHFUL, RANDOM_0_TO_60;

        String value(long millisUntilRoom, Random random) {
            switch (this) {
                case ZERO:
                    return "0";
                case CONSTANT_3600:
                    return "3600";
                case TRUTHFUL:
                    return Long.toString((millisUntilRoom + 999) / 1000);
                case RANDOM_0_TO_60:
                    return Integer.toString(random.nextInt(61));
                default:
                    return null;
            }
        }
    }

    static final long SECOND = 1_000;
    static final long MINUTE = 60 * SECOND;
    static final long HOUR = 60 * MINUTE;

    /** Every shape the issue names, at limits portals enforce. */
    static List<LimiterShape> all(int records) {
        return List.of(
                fixed("fixed 5 / 1 s, 503, no header", 5, SECOND, 503, Header.NONE),
                fixed("fixed 20 / 2 s, Retry-After: 0", 20, 2 * SECOND, 429, Header.ZERO),
                fixed("fixed 20 / 2 s, Retry-After: 3600", 20, 2 * SECOND, 429, Header.CONSTANT_3600),
                fixed("fixed 100 / 60 s, no header", 100, MINUTE, 429, Header.NONE),
                fixed("fixed 1,000 / hour, truthful header", 1000, HOUR, 429, Header.TRUTHFUL),
                rolling("rolling 100 / 60 s, Retry-After: 0", 100, MINUTE, Header.ZERO),
                rolling("rolling 1,000 / hour, no header", 1000, HOUR, Header.NONE),
                new LimiterShape("leaky bucket 5/s, burst 10 (nginx), 503", origin -> new Limiter.LeakyBucket(5, 10), 5, 11, 0, 0,
                        503, Header.NONE, 2 * SECOND, 0, Long.MAX_VALUE, 5, false),
                new LimiterShape("token bucket 50, 2/s", origin -> new Limiter.TokenBucket(50, 2), 2, 50, 0, 0, 429, Header.NONE,
                        25 * SECOND, 0, Long.MAX_VALUE, 2, false),
                new LimiterShape("2 in flight, 200 ms each", origin -> new Limiter.InFlightCap(2), 0, 0, 2, 200, 429, Header.ZERO,
                        0, 0, Long.MAX_VALUE, 0, false),
                drift("drift 20 → 8 / 2 s half-way", 20, 8, records),
                drift("drift 8 → 20 / 2 s half-way", 8, 20, records),
                fixed("fixed 50 / 10 s, random Retry-After 0-60", 50, 10 * SECOND, 429, Header.RANDOM_0_TO_60),
                new LimiterShape("late start: 100 / 60 s already spent, 40 s left", origin -> new Limiter.FixedWindow(100, 100,
                        Long.MAX_VALUE, MINUTE, origin - 20 * SECOND, 100), 100.0 / 60, 100, 0, 0, 429, Header.NONE, 40 * SECOND + MINUTE,
                        40 * SECOND, Long.MAX_VALUE, 100.0 / 60, true));
    }

    static LimiterShape fixed(String name, int limit, long window, int status, Header header) {
        return new LimiterShape(name, origin -> new Limiter.FixedWindow(limit, limit, Long.MAX_VALUE, window, origin, 0),
                limit * 1000.0 / window, limit, 0, 0, status, header, window, 0, Long.MAX_VALUE, limit * 1000.0 / window, true);
    }

    private static LimiterShape rolling(String name, int limit, long window, Header header) {
        return new LimiterShape(name, origin -> new Limiter.RollingWindow(limit, window), limit * 1000.0 / window, limit, 0, 0,
                429, header, window, 0, Long.MAX_VALUE, limit * 1000.0 / window, true);
    }

    /** A 2 s fixed window whose limit changes once half the records would have gone at the first limit. */
    private static LimiterShape drift(String name, int from, int to, int records) {
        long window = 2 * SECOND;
        long change = (long) (records / 2.0 / from) * window;
        return new LimiterShape(name, origin -> new Limiter.FixedWindow(from, to, origin + change, window, origin, 0),
                from * 1000.0 / window, from, 0, 0, 429, Header.ZERO, window, 0, change, to * 1000.0 / window, true);
    }

    /**
     * The time {@code records} take at the limit enforced: its rate throughout (where it drifts, the first
     * half at the first rate), or for a cap on requests in flight, that many at a time; never less than
     * {@code threads} workers need when every attempt takes {@code latency} to arrive. A client that uses a
     * limiter's burst can beat it by the burst; efficiency is capped at 1.
     */
    long idealMillis(int records, int threads, long latency) {
        long workers = (long) Math.ceil((double) records / threads) * (latency + serviceMillis);
        long limiter;
        if (inFlight > 0) {
            limiter = (long) Math.ceil((double) records / Math.min(inFlight, threads)) * (latency + serviceMillis);
        } else if (changeAfter != Long.MAX_VALUE) {
            double before = rate * changeAfter / 1000.0;
            limiter = changeAfter + (long) (Math.max(0, records - before) / laterRate * 1000);
        } else {
            limiter = lateStart + (long) (records / rate * 1000);
        }
        return Math.max(workers, limiter);
    }

    @Override
    public String toString() {
        return name;
    }
}
