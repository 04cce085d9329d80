package dev.retryafter.it.bench;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
 * @param windowTarget   a fixed or rolling window, whose efficiency target is higher (0.95, not 0.9): as #25 sets
 *                       the targets, not a limit that drifts or a header drawn at random, shapes of their own
 * @param hints          the rate-limit headers it sends on every response
 * @param targets        which targets the agent is held to on it
 * @param baseline       for {@link Targets#NO_WORSE}: the shape without its hints, whose figures it must match
 */
record LimiterShape(String name, LongFunction<Limiter> limiter, double rate, int burst, int inFlight, long serviceMillis,
                    int status, Header header, long firstPeriod, long lateStart, long changeAfter, double laterRate,
                    boolean windowTarget, Hints hints, Targets targets, String baseline) {

    LimiterShape(String name, LongFunction<Limiter> limiter, double rate, int burst, int inFlight, long serviceMillis,
                 int status, Header header, long firstPeriod, long lateStart, long changeAfter, double laterRate,
                 boolean windowTarget) {
        this(name, limiter, rate, burst, inFlight, serviceMillis, status, header, firstPeriod, lateStart, changeAfter, laterRate,
                windowTarget, Hints.NONE, Targets.LEARN, null);
    }

    /** The targets a shape holds the agent to. */
    enum Targets {
        /** Learning a limit: efficiency, refusals after the first window, nothing lost, the floor. */
        LEARN,
        /** Truthful rate-limit hints: efficiency >= 0.98 and no refusal at all. */
        HINTS,
        /** Lying hints: no worse than the same portal without them ({@code baseline}). */
        NO_WORSE,
        /** A quota that outlasts max-sleep: held after few refusals a period, nothing lost but failed fast, the floor. */
        QUOTA,
        /** A penalty box: never entered, nothing lost but failed fast, the floor. */
        BOX
    }

    /** The rate-limit headers a portal sends beside {@code Retry-After}. */
    enum Hints {
        NONE, X_RATELIMIT, IETF, X_RATELIMIT_LYING,
        /** Twitter's older form, {@code X-Rate-Limit-*}, its reset as delta-seconds (the child-JVM test's only). */
        X_RATE_LIMIT_DELTA,
        /** The IETF draft's older fields, {@code RateLimit-Limit/-Remaining/-Reset} (the child-JVM test's only). */
        IETF_OLD_DRAFT;

        /** The headers for a response at {@code now}, from what the limiter has left and when it is whole again. */
        Map<String, String> at(long now, long limit, long windowMillis, long remaining, long millisUntilRoom) {
            long resetSeconds = (millisUntilRoom + 999) / 1000;
            switch (this) {
                case X_RATELIMIT:
                    // GitHub's form: the reset as epoch seconds, rounded up so it is never early
                    return Map.of("X-RateLimit-Limit", Long.toString(limit), "X-RateLimit-Remaining", Long.toString(remaining),
                            "X-RateLimit-Reset", Long.toString((now + millisUntilRoom + 999) / 1000));
                case IETF:
                    return Map.of("RateLimit", "limit=" + limit + ", remaining=" + remaining + ", reset=" + resetSeconds,
                            "RateLimit-Policy", limit + ";w=" + windowMillis / 1000);
                case X_RATELIMIT_LYING:
                    return Map.of("X-RateLimit-Limit", "100", "X-RateLimit-Remaining", "100", "X-RateLimit-Reset", "0");
                case X_RATE_LIMIT_DELTA:
                    return Map.of("X-Rate-Limit-Limit", Long.toString(limit), "X-Rate-Limit-Remaining", Long.toString(remaining),
                            "X-Rate-Limit-Reset", Long.toString(resetSeconds));
                case IETF_OLD_DRAFT:
                    return Map.of("RateLimit-Limit", Long.toString(limit), "RateLimit-Remaining", Long.toString(remaining),
                            "RateLimit-Reset", Long.toString(resetSeconds));
                default:
                    return Map.of();
            }
        }
    }

    /** What the portal says in {@code Retry-After} when it refuses. */
    enum Header {
        NONE, ZERO, CONSTANT_3600, TRUTHFUL, RANDOM_0_TO_60, DATE;

        private static final DateTimeFormatter IMF_FIXDATE =
                DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

        String value(long now, long millisUntilRoom, Random random) {
            switch (this) {
                case DATE:
                    return IMF_FIXDATE.format(Instant.ofEpochMilli(now + millisUntilRoom + 999));
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
    static final long DAY = 24 * HOUR;

    /** Every shape the issue names, at limits portals enforce. */
    static List<LimiterShape> all(int records) {
        return List.of(
                fixed("fixed 5 / 1 s, 503, no header", 5, SECOND, 503, Header.NONE),
                fixed("fixed 20 / 2 s, Retry-After: 0", 20, 2 * SECOND, 429, Header.ZERO),
                fixed("fixed 20 / 2 s, Retry-After: 3600", 20, 2 * SECOND, 429, Header.CONSTANT_3600),
                fixed("fixed 100 / 60 s, no header", 100, MINUTE, 429, Header.NONE),
                // Windows between a few seconds and the default 60 s: the first streak's tries cannot find their end.
                fixed("fixed 100 / 10 s, Retry-After: 0", 100, 10 * SECOND, 429, Header.ZERO),
                fixed("fixed 40 / 20 s, no header", 40, 20 * SECOND, 429, Header.NONE),
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
                ownShape(fixed("fixed 50 / 10 s, random Retry-After 0-60", 50, 10 * SECOND, 429, Header.RANDOM_0_TO_60)),
                new LimiterShape("late start: 100 / 60 s already spent, 40 s left", origin -> new Limiter.FixedWindow(100, 100,
                        Long.MAX_VALUE, MINUTE, origin - 20 * SECOND, 100), 100.0 / 60, 100, 0, 0, 429, Header.NONE, 40 * SECOND + MINUTE,
                        40 * SECOND, Long.MAX_VALUE, 100.0 / 60, true),
                hinted("fixed 20 / 2 s, no Retry-After, X-RateLimit-* (reset: epoch seconds)", Hints.X_RATELIMIT, Targets.HINTS, null),
                hinted("fixed 20 / 2 s, no Retry-After, IETF RateLimit + RateLimit-Policy", Hints.IETF, Targets.HINTS, null),
                hinted("fixed 20 / 2 s, Retry-After: 0, X-RateLimit-* lying (100 left, reset 0)", Hints.X_RATELIMIT_LYING,
                        Targets.NO_WORSE, "fixed 20 / 2 s, Retry-After: 0"),
                quota("daily quota 500, Retry-After: the HTTP-date of midnight", Header.DATE),
                quota("daily quota 500, no header", Header.NONE),
                box("fixed 20 / 2 s, Retry-After: 0; over 3 refusals a minute: 403 for 10 min", 3, 403),
                box("fixed 20 / 2 s, Retry-After: 0; over 10 refusals a minute: 429 for 10 min", 10, 429));
    }

    /** 20 per 2 s with no Retry-After and truthful {@code hints}: a portal outside the benchmark's table, for real JVMs. */
    static LimiterShape truthfullyHinted(String name, Hints hints) {
        return hinted(name, hints, Targets.HINTS, null);
    }

    private static LimiterShape hinted(String name, Hints hints, Targets targets, String baseline) {
        LimiterShape plain = fixed(name, 20, 2 * SECOND, 429, hints == Hints.X_RATELIMIT_LYING ? Header.ZERO : Header.NONE);
        return new LimiterShape(name, plain.limiter(), plain.rate(), plain.burst(), 0, 0, 429, plain.header(), plain.firstPeriod(), 0,
                Long.MAX_VALUE, plain.rate(), true, hints, targets, baseline);
    }

    /** 500 requests a day, in days that start at the first request. */
    private static LimiterShape quota(String name, Header header) {
        return new LimiterShape(name, origin -> new Limiter.FixedWindow(500, 500, Long.MAX_VALUE, DAY, origin, 0), 500.0 / DAY * 1000,
                500, 0, 0, 429, header, DAY, 0, Long.MAX_VALUE, 500.0 / DAY * 1000, true, Hints.NONE, Targets.QUOTA, null);
    }

    /** 20 per 2 s, behind a box: more than {@code maxRefusals} refusals within a minute and every request is refused for 10 minutes. */
    private static LimiterShape box(String name, int maxRefusals, int boxStatus) {
        return new LimiterShape(name, origin -> new Limiter.PenaltyBox(new Limiter.FixedWindow(20, 20, Long.MAX_VALUE, 2 * SECOND, origin, 0),
                maxRefusals, MINUTE, 10 * MINUTE, boxStatus), 10, 20, 0, 0, 429, Header.ZERO, 2 * SECOND, 0, Long.MAX_VALUE, 10, true,
                Hints.NONE, Targets.BOX, null);
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
        return ownShape(new LimiterShape(name, origin -> new Limiter.FixedWindow(from, to, origin + change, window, origin, 0),
                from * 1000.0 / window, from, 0, 0, 429, Header.ZERO, window, 0, change, to * 1000.0 / window, true));
    }

    /** {@code window} held to the target of the shapes that are not fixed or rolling windows (a drift, a random header). */
    private static LimiterShape ownShape(LimiterShape window) {
        return new LimiterShape(window.name(), window.limiter(), window.rate(), window.burst(), window.inFlight(), window.serviceMillis(),
                window.status(), window.header(), window.firstPeriod(), window.lateStart(), window.changeAfter(), window.laterRate(),
                false, window.hints(), window.targets(), window.baseline());
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
