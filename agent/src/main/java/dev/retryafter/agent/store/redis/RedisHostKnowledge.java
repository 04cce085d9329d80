package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.AgentLog;
import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.engine.DaemonThreads;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * What a fleet of JVMs knows about each host, kept in one Redis, and changed only by the atomic
 * scripts of {@link FleetScripts}, timed by Redis's clock. Keys, all under the fleet's hash tag so
 * that a cluster keeps a fleet in one slot:
 * <pre>
 *   retry-after:{FLEET}:host:HOST:PORT            hash: next, nb, hold, hold-reason, holds, refused-at,
 *                                                 refusals, admitted, admitted-at-refusal, ceiling, rate,
 *                                                 cycle, learned-at, v
 *   retry-after:{FLEET}:host:HOST:PORT:streaks    list: finished streaks, newest first, bounded
 *   retry-after:{FLEET}:host:HOST:PORT:admitted   hash: successes per bucket of server time
 * </pre>
 * Every write renews its key's expiry, so a host nobody asks about any more leaves Redis by itself.
 *
 * <p>Nothing here throws or waits long: each operation answers within about the timeout, or returns
 * "unavailable" (an empty optional, or false), and the caller carries on with its own knowledge.
 * A host whose moments are all past costs no round trip: {@link #cached} answers from moments a
 * background thread refreshes every {@code refreshMillis}, and that thread also carries the
 * successes counted meanwhile to Redis.
 */
public final class RedisHostKnowledge implements AutoCloseable {

    /** Fleet names go inside a hash tag and a key: no braces, no spaces. */
    private static final Pattern FLEET_NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /** How long a host stays in Redis after its last write; the state file's default age limit. */
    public static final long DEFAULT_TTL_MILLIS = TimeUnit.DAYS.toMillis(7);
    public static final long DEFAULT_REFRESH_MILLIS = 200;
    /** The engine's observation window. */
    public static final int DEFAULT_STREAK_CAPACITY = 5;
    /** A host not asked about for this long is no longer refreshed. */
    static final long INTEREST_MILLIS = 60_000;
    /**
     * A host whose command Redis refused for its data (out of memory, say) stays in this JVM this
     * long before Redis is asked again: a refusal that lasts costs a round trip every 30 s, not every request.
     */
    static final long DEFAULT_KEPT_LOCAL_MILLIS = 30_000;

    private final RedisLink link;
    private final String fleet;
    private final Clock clock;
    private final long ttlMillis;
    private final int streakCapacity;
    private final ConcurrentHashMap<String, Host> hosts = new ConcurrentHashMap<>();
    private final List<java.util.function.Consumer<String>> hostRestored = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final ScheduledExecutorService refresher;
    /** A trip asked of the refresher and not yet made: successes counted meanwhile go with it. */
    private final java.util.concurrent.atomic.AtomicBoolean flushQueued = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile long lastEarlyFlushNanos = System.nanoTime() - TimeUnit.SECONDS.toNanos(1);
    static final long EARLY_FLUSH_MILLIS = 25;
    /** How finely a host's last use is kept: it only decides, to the minute, which hosts are refreshed. */
    private static final long ASKED_GRAIN_MILLIS = 1000;
    private final long refreshMillis;
    /**
     * Held while a refresh or a refusal takes this JVM's counted successes and carries them to Redis:
     * a refusal's ceiling must not be read while a refresh that took the count is still on its way.
     */
    private final Object countingTrips = new Object();
    private final boolean countsAtOnce;
    private volatile boolean momentsLoaded;
    private final boolean timedByCaller;
    private final long keptLocalNanos;

    /** The options a fleet store is made with; the defaults suit a loopback or same-zone Redis. */
    public static final class Options {
        int timeoutMillis = RedisLink.DEFAULT_TIMEOUT_MILLIS;
        long ttlMillis = DEFAULT_TTL_MILLIS;
        long refreshMillis = DEFAULT_REFRESH_MILLIS;
        boolean countsAtOnce = true;
        int streakCapacity = DEFAULT_STREAK_CAPACITY;
        boolean timedByCaller;
        long steadyMillis = RedisLink.DEFAULT_STEADY_MILLIS;
        long keptLocalMillis = DEFAULT_KEPT_LOCAL_MILLIS;

        /**
         * For tests in virtual time only: the scripts take "now" from the store's clock (or the moment
         * an operation names) instead of Redis's {@code TIME}. Everything else is as in production.
         */
        public Options timedByCaller() {
            this.timedByCaller = true;
            return this;
        }

        public Options timeoutMillis(int millis) {
            if (millis < 1) {
                throw new IllegalArgumentException("the store timeout must be at least 1 ms");
            }
            this.timeoutMillis = millis;
            return this;
        }

        public Options ttlMillis(long millis) {
            this.ttlMillis = Math.max(1000, millis);
            return this;
        }

        /**
         * Off: a success's count waits for the next refresh or operation, as it did before the
         * refresher was asked for a trip after each first success; for a test of the request path alone.
         */
        public Options countsOnlyWithTheRefresh() {
            this.countsAtOnce = false;
            return this;
        }

        /** For tests: how long a host stays in this JVM after Redis refused one of its commands (out of memory...). */
        Options keptLocalMillis(long millis) {
            this.keptLocalMillis = Math.max(1, millis);
            return this;
        }

        /** For tests: how long Redis must answer steadily before an outage is over and said to be. */
        Options steadyMillis(long millis) {
            this.steadyMillis = Math.max(1, millis);
            return this;
        }

        public Options refreshMillis(long millis) {
            this.refreshMillis = Math.max(10, millis);
            return this;
        }

        public Options streakCapacity(int capacity) {
            this.streakCapacity = Math.max(1, capacity);
            return this;
        }
    }

    /** Starts no connection yet: the first operation connects, and a Redis not there yet only opens the circuit. */
    public static RedisHostKnowledge connect(RedisAddress address, String fleet, Clock clock, Options options) {
        return new RedisHostKnowledge(address, fleet, clock, options, RedisLink.Events.LOG);
    }

    RedisHostKnowledge(RedisAddress address, String fleet, Clock clock, Options options, RedisLink.Events events) {
        this.fleet = checkedFleet(fleet);
        this.clock = Objects.requireNonNull(clock);
        this.ttlMillis = options.ttlMillis;
        this.streakCapacity = options.streakCapacity;
        this.timedByCaller = options.timedByCaller;
        this.countsAtOnce = options.countsAtOnce;
        this.refreshMillis = options.refreshMillis;
        this.keptLocalNanos = TimeUnit.MILLISECONDS.toNanos(options.keptLocalMillis);
        this.link = new RedisLink(address, options.timeoutMillis, options.steadyMillis, events);
        this.link.onRestored(() -> momentsLoaded = false); // a Redis restarted empty has no scripts either
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, new DaemonThreads("retry-after-agent-fleet-refresh"));
        executor.scheduleWithFixedDelay(this::refreshSafely, options.refreshMillis, options.refreshMillis,
                TimeUnit.MILLISECONDS);
        this.refresher = executor;
    }

    /** Throws IllegalArgumentException, with a message fit for the user, for a name that cannot be a key. */
    public static String checkedFleet(String fleet) {
        if (fleet == null || !FLEET_NAME.matcher(fleet).matches()) {
            throw new IllegalArgumentException("'" + fleet + "' is not a fleet name; use letters, digits, '.', '_' "
                    + "and '-', at most 64");
        }
        return fleet;
    }

    public String fleet() {
        return fleet;
    }

    public RedisAddress address() {
        return link.address();
    }

    /** Whether operations reach Redis now; false while the circuit is open. */
    public boolean isAvailable() {
        return link.isAvailable();
    }

    /**
     * Runs on the store's own thread when Redis answers again after being unavailable, so that the
     * caller can merge back what it learned meanwhile (the operations' semantics make that safe:
     * later moments win, streaks append). Its calls reach Redis; every other caller's find the store
     * unavailable until it is done, and if one of its calls fails, it runs again at the next reconnection.
     */
    public void onRestored(Runnable merge) {
        link.onRestored(merge);
    }

    /**
     * Runs, on the caller's thread, with a host whose commands Redis refused (out of memory, say) when
     * it is asked of Redis again, before that: what this JVM learned of it meanwhile can go first.
     */
    public void onHostRestored(java.util.function.Consumer<String> merge) {
        hostRestored.add(merge);
    }

    /** The key of the host's hash, as the scripts use it: {@code retry-after:{fleet}:host:HOST:PORT}. */
    public String hashKey(String host) {
        return host(host).hash;
    }

    /**
     * Books the next slot on the fleet's one schedule for {@code host}, one {@code intervalMillis}
     * after the previous booking by any JVM, no sooner than the fleet's not-before, and no further
     * off than {@code maxWaitMillis}. Returns how long to wait for it; empty when Redis is unavailable.
     * Also carries this JVM's successes counted since the last trip, for the fleet's ceiling.
     */
    public OptionalLong reserve(String host, long intervalMillis, long maxWaitMillis, long windowMillis) {
        return reserve(host, clock.millis(), intervalMillis, maxWaitMillis, windowMillis);
    }

    /** The same, asked at {@code now} on the caller's clock: the script's now when timed by the caller. */
    public OptionalLong reserve(String host, long now, long intervalMillis, long maxWaitMillis, long windowMillis) {
        try {
            return reserveUnguarded(host, now, intervalMillis, maxWaitMillis, windowMillis);
        } catch (RuntimeException e) {
            AgentLog.failure("reading the fleet store's answer to reserve", e); // a reply this version cannot read
            return OptionalLong.empty();
        }
    }

    private OptionalLong reserveUnguarded(String host, long now, long intervalMillis, long maxWaitMillis, long windowMillis) {
        Host h = host(host);
        h.asked(clock.millis(), windowMillis);
        int pending = h.pendingAdmitted.getAndSet(0);
        Object reply = runAt(now, h, FleetScripts.RESERVE, Arrays.asList(h.hash, h.admitted), pending,
                Long.toString(ttlMillis), Long.toString(Math.max(0, intervalMillis)), Long.toString(Math.max(0, maxWaitMillis)),
                Integer.toString(pending), Long.toString(bucketMillis(windowMillis)), Long.toString(windowMillis));
        if (reply == null) {
            return OptionalLong.empty();
        }
        List<?> values = (List<?>) reply;
        long base = timedByCaller ? now : clock.millis();
        long wait = Math.max(0, number(values.get(0)));
        Moments before = h.moments;
        h.moments = new Moments(base, base + Math.max(0, number(values.get(1))), base + Math.max(0, number(values.get(2))),
                base + wait + intervalMillis, before.refusedRate, before.holdReason, before.streakOpen, before.learned);
        return OptionalLong.of(wait);
    }

    /** Later wins. Returns how far off the fleet's not-before lies now; empty when Redis is unavailable. */
    public OptionalLong imposeNotBefore(String host, long waitMillis) {
        OptionalLong remaining = later(host, "nb", Math.max(0, waitMillis));
        if (remaining.isPresent()) {
            Host h = host(host);
            h.moments = h.moments.withNotBefore(clock.millis() + Math.max(0, remaining.getAsLong()));
        }
        return remaining;
    }

    /** The shared schedule's next free slot no sooner than {@code aheadMillis} from now (later wins): a merge. */
    public OptionalLong bookNextSlotAtLeast(String host, long aheadMillis) {
        return later(host, "next", aheadMillis);
    }

    /**
     * Refusal costs of streaks begun before {@code agoMillis} ago no longer count (later wins): the
     * category changed then. Returns how long ago the fleet's moment is.
     */
    public OptionalLong forgetCostsBefore(String host, long agoMillis) {
        OptionalLong moment = later(host, "costs-since", -agoMillis);
        return moment.isPresent() ? OptionalLong.of(-moment.getAsLong()) : moment;
    }

    private OptionalLong later(String host, String field, long offsetMillis) {
        try {
            return laterUnguarded(host, field, offsetMillis);
        } catch (RuntimeException e) {
            AgentLog.failure("reading the fleet store's answer to later", e); // a reply this version cannot read
            return OptionalLong.empty();
        }
    }

    private OptionalLong laterUnguarded(String host, String field, long offsetMillis) {
        Host h = host(host);
        Object reply = run(h, FleetScripts.LATER, Collections.singletonList(h.hash), 0,
                Long.toString(ttlMillis), field, Long.toString(offsetMillis));
        return reply == null ? OptionalLong.empty() : OptionalLong.of(number(reply));
    }

    /** The first verdict against the host's rate-limit hints stands, for the whole fleet. */
    public void distrustHints(String host, String why) {
        try {
            Host h = host(host);
            run(h, FleetScripts.DISTRUST_HINTS, Collections.singletonList(h.hash), 0, Long.toString(ttlMillis), why);
        } catch (RuntimeException e) {
            AgentLog.failure("reading the fleet store's answer to distrustHints", e); // a reply this version cannot read
        }
    }

    /**
     * Holds the host for {@code millis} (later wins; the winning hold's reason is kept), and no
     * request goes before it ends. Returns how far off the fleet's hold ends; empty when unavailable.
     */
    public OptionalLong holdFor(String host, long millis, String reason) {
        try {
            return holdForUnguarded(host, millis, reason);
        } catch (RuntimeException e) {
            AgentLog.failure("reading the fleet store's answer to holdFor", e); // a reply this version cannot read
            return OptionalLong.empty();
        }
    }

    private OptionalLong holdForUnguarded(String host, long millis, String reason) {
        Host h = host(host);
        Object reply = run(h, FleetScripts.HOLD, Collections.singletonList(h.hash), 0,
                Long.toString(ttlMillis), Long.toString(Math.max(0, millis)), reason == null ? "" : reason);
        if (reply == null) {
            return OptionalLong.empty();
        }
        long remaining = Math.max(0, number(reply));
        long until = clock.millis() + remaining;
        h.moments = h.moments.withHold(until, reason == null ? "" : reason);
        return OptionalLong.of(remaining);
    }

    /**
     * A success from {@code host}: counted here, carried to Redis with the next trip. Costs no round
     * trip on the request path. On a host of a short window, the first success since the last trip
     * also asks the refresher for one soon: an unpaced host makes no trip of its own, and a fleet's
     * first burst is over within a refresh interval, so another JVM's refusal would otherwise read a
     * ceiling short of this JVM's successes (16 of a portal's 20 in 2 s, three JVMs on loopback).
     */
    public void admitted(String host, long windowMillis) {
        Host h = host(host);
        h.asked(clock.millis(), windowMillis);
        if (h.pendingAdmitted.getAndIncrement() != 0 || !countsAtOnce) {
            return;
        }
        long soonest = earlyFlushMillis(windowMillis);
        if (soonest < refreshMillis && flushQueued.compareAndSet(false, true)) {
            try {
                // At most one such trip every soonest ms: a busy happy host costs Redis a few dozen a second, not one per success.
                long sinceLast = System.nanoTime() - lastEarlyFlushNanos;
                long delay = Math.max(0, soonest - TimeUnit.NANOSECONDS.toMillis(sinceLast));
                refresher.schedule(() -> {
                    lastEarlyFlushNanos = System.nanoTime();
                    flushQueued.set(false);
                    refreshSafely();
                }, delay, TimeUnit.MILLISECONDS);
            } catch (RuntimeException closed) {
                flushQueued.set(false); // closed: the count waits for nothing
            }
        }
    }

    /**
     * A refusal from {@code host} of a request sent {@code sentAgoMillis} ago, with the header's wait
     * (empty: none usable), while this JVM paced the host or not. Counts it into the fleet's open
     * streak, or opens one, and reads the fleet's ceiling: the successes every JVM saw since the
     * window began or since the fleet's previous refusal, whichever is later. Empty when unavailable.
     */
    public Optional<FleetRefusal> onRefusal(String host, long windowMillis, long sentAgoMillis, OptionalLong headerMillis,
                                            boolean whilePaced) {
        return onRefusal(host, clock.millis(), windowMillis, sentAgoMillis, headerMillis, whilePaced);
    }

    /** The same, seen at {@code now} on the caller's clock: the script's now when timed by the caller. */
    public Optional<FleetRefusal> onRefusal(String host, long now, long windowMillis, long sentAgoMillis,
                                            OptionalLong headerMillis, boolean whilePaced) {
        try {
            return onRefusalUnguarded(host, now, windowMillis, sentAgoMillis, headerMillis, whilePaced);
        } catch (RuntimeException e) {
            AgentLog.failure("reading the fleet store's answer to onRefusal", e); // a reply this version cannot read
            return Optional.<FleetRefusal>empty();
        }
    }

    private Optional<FleetRefusal> onRefusalUnguarded(String host, long now, long windowMillis, long sentAgoMillis,
                                            OptionalLong headerMillis, boolean whilePaced) {
        Host h = host(host);
        h.asked(clock.millis(), windowMillis);
        Object reply;
        synchronized (countingTrips) { // after any refresh that took this JVM's count: the ceiling must include it
            int pending = h.pendingAdmitted.getAndSet(0);
            reply = runAt(now, h, FleetScripts.REFUSAL, Arrays.asList(h.hash, h.admitted), pending,
                    Long.toString(ttlMillis), Integer.toString(pending), Long.toString(bucketMillis(windowMillis)),
                    Long.toString(windowMillis), Long.toString(sentAgoMillis),
                    headerMillis.isPresent() ? Long.toString(Math.max(0, headerMillis.getAsLong())) : "-", whilePaced ? "1" : "0");
        }
        if (reply == null) {
            return Optional.empty();
        }
        List<?> v = (List<?>) reply;
        h.moments = h.moments.withStreakOpen();
        String header = text(v.get(4));
        return Optional.of(new FleetRefusal((int) number(v.get(0)), number(v.get(1)), number(v.get(2)) == 1,
                Math.max(0, number(v.get(3))), parsedLong(header),
                Math.max(0, number(v.get(5))), (int) number(v.get(6)), "1".equals(text(v.get(7)))));
    }

    /**
     * A success from {@code host} to a request sent {@code sentAgoMillis} ago. If the fleet has a
     * streak open that began before it went out, the streak is over: it joins the fleet's finished
     * streaks, and is returned. The happy path costs no round trip: with no streak open in the
     * cached moments, this only counts the success. Empty when Redis is unavailable.
     */
    public Optional<Recovery> onAdmitted(String host, long windowMillis, long sentAgoMillis) {
        admitted(host, windowMillis);
        if (!host(host).moments.streakOpen) {
            return Optional.of(Recovery.NONE);
        }
        return endStreak(host, clock.millis(), sentAgoMillis);
    }

    /**
     * Ends the fleet's open streak if a request sent {@code sentAgoMillis} before {@code now} (on the
     * caller's clock when timed by the caller) went out after it began; always a round trip.
     * Empty when Redis is unavailable.
     */
    public Optional<Recovery> endStreak(String host, long now, long sentAgoMillis) {
        try {
            return endStreakUnguarded(host, now, sentAgoMillis);
        } catch (RuntimeException e) {
            AgentLog.failure("reading the fleet store's answer to endStreak", e); // a reply this version cannot read
            return Optional.<Recovery>empty();
        }
    }

    private Optional<Recovery> endStreakUnguarded(String host, long now, long sentAgoMillis) {
        Host h = host(host);
        Object reply = runAt(now, h, FleetScripts.RECOVERY, Arrays.asList(h.hash, h.streaks), 0, Long.toString(ttlMillis),
                Integer.toString(streakCapacity), Long.toString(sentAgoMillis));
        if (reply == null) {
            return Optional.empty();
        }
        List<?> v = (List<?>) reply;
        if (number(v.get(0)) == 0) {
            return Optional.of(Recovery.NONE); // sent before the streak began, or another JVM closed it
        }
        h.moments = h.moments.withStreakClosed();
        String header = text(v.get(2));
        long age = Math.max(0, number(v.get(1)));
        OptionalLong headerMillis = parsedLong(header);
        StreakRecord streak = !headerMillis.isPresent()
                ? StreakRecord.withoutHeader(number(v.get(3)), number(v.get(4)), "1".equals(text(v.get(5))), age)
                : StreakRecord.withHeader(headerMillis.getAsLong(), number(v.get(3)), number(v.get(4)), "1".equals(text(v.get(5))), age);
        return Optional.of(new Recovery(streak));
    }

    /** What a success did to the fleet's streak: ended it (and how it ran), or nothing. */
    public static final class Recovery {
        static final Recovery NONE = new Recovery(null);
        private final StreakRecord streak;

        Recovery(StreakRecord streak) {
            this.streak = streak;
        }

        public boolean streakEnded() {
            return streak != null;
        }

        /** The streak that ended; only when {@link #streakEnded()}. */
        public StreakRecord streak() {
            if (streak == null) {
                throw new IllegalStateException("no streak ended");
            }
            return streak;
        }
    }

    /** A refusal as the fleet counted it. Ages are by Redis's clock. */
    public static final class FleetRefusal {
        private final int ceiling;
        private final long refusals;
        private final boolean firstOfStreak;
        private final long streakAgeMillis;
        private final OptionalLong headerMillis;
        private final long lastRefusedSentAgoMillis;
        private final int streakRefusals;
        private final boolean whilePaced;

        FleetRefusal(int ceiling, long refusals, boolean firstOfStreak, long streakAgeMillis, OptionalLong headerMillis,
                     long lastRefusedSentAgoMillis, int streakRefusals, boolean whilePaced) {
            this.ceiling = ceiling;
            this.refusals = refusals;
            this.firstOfStreak = firstOfStreak;
            this.streakAgeMillis = streakAgeMillis;
            this.headerMillis = headerMillis;
            this.lastRefusedSentAgoMillis = lastRefusedSentAgoMillis;
            this.streakRefusals = streakRefusals;
            this.whilePaced = whilePaced;
        }

        /** Successes of the whole fleet in the window before this refusal, since the previous one. */
        public int ceiling() {
            return ceiling;
        }

        /** Refusals the fleet has seen from the host, this one included. */
        public long refusals() {
            return refusals;
        }

        /** This refusal opened the fleet's streak: the one whose ceiling teaches. */
        public boolean isFirstOfStreak() {
            return firstOfStreak;
        }

        public long streakAgeMillis() {
            return streakAgeMillis;
        }

        /** The header of the streak's first refusal, whoever saw it; empty when it had none usable. */
        public OptionalLong streakHeaderMillis() {
            return headerMillis;
        }

        public long lastRefusedSentAgoMillis() {
            return lastRefusedSentAgoMillis;
        }

        /** Refusals in the fleet's streak so far, this one included: the backoff's exponent. */
        public int streakRefusals() {
            return streakRefusals;
        }

        public boolean streakWhilePaced() {
            return whilePaced;
        }

        @Override
        public String toString() {
            return "FleetRefusal[ceiling " + ceiling + ", refusals " + refusals + (firstOfStreak ? ", first" : "") + ", streak of "
                    + streakRefusals + " begun " + streakAgeMillis + " ms ago]";
        }
    }

    /**
     * An open streak that began {@code startAgoMillis} ago, merged in: it becomes the fleet's when the
     * fleet has none open, or an older one. False when unavailable or the fleet's stands.
     */
    public boolean mergeOpenStreak(String host, long startAgoMillis, OptionalLong headerMillis, long lastSentAgoMillis,
                                   int refusals, boolean whilePaced) {
        Host h = host(host);
        Object reply = run(h, FleetScripts.OPEN_STREAK, Collections.singletonList(h.hash), 0, Long.toString(ttlMillis),
                Long.toString(startAgoMillis), headerMillis.isPresent() ? Long.toString(headerMillis.getAsLong()) : "-",
                Long.toString(lastSentAgoMillis), Integer.toString(refusals), whilePaced ? "1" : "0");
        return reply != null && number(reply) == 1;
    }

    /**
     * Appends a finished streak to the fleet's, keeping the newest {@code streakCapacity}; one the
     * fleet has already is not added again. False when unavailable.
     */
    public boolean recordStreak(String host, StreakRecord streak) {
        Host h = host(host);
        return run(h, FleetScripts.STREAK, Collections.singletonList(h.streaks), 0, Long.toString(ttlMillis),
                Integer.toString(streakCapacity), Long.toString(streak.ageMillis()), streak.encode()) != null;
    }

    /**
     * What this JVM learned {@code learnedAgoMillis} ago: a ceiling (empty: the fleet's stands) and
     * a pace refused at {@code refusedRate} whose curve began {@code epochAgoMillis} ago with cycle
     * {@code cycleMillis} (a rate of 0: the fleet's pace stands). Kept unless the fleet learned
     * something later. Returns how long ago the learning the fleet now keeps was made; empty when unavailable.
     */
    public OptionalLong recordLearned(String host, long learnedAgoMillis, OptionalInt ceiling, double refusedRate,
                                      long cycleMillis, long epochAgoMillis) {
        try {
            return recordLearnedUnguarded(host, learnedAgoMillis, ceiling, refusedRate, cycleMillis, epochAgoMillis);
        } catch (RuntimeException e) {
            AgentLog.failure("reading the fleet store's answer to recordLearned", e); // a reply this version cannot read
            return OptionalLong.empty();
        }
    }

    private OptionalLong recordLearnedUnguarded(String host, long learnedAgoMillis, OptionalInt ceiling, double refusedRate,
                                      long cycleMillis, long epochAgoMillis) {
        Host h = host(host);
        boolean paced = refusedRate > 0 && !Double.isInfinite(refusedRate) && cycleMillis > 0;
        Object reply = run(h, FleetScripts.LEARNED, Collections.singletonList(h.hash), 0, Long.toString(ttlMillis),
                Long.toString(learnedAgoMillis), ceiling.isPresent() ? Integer.toString(ceiling.getAsInt()) : "",
                paced ? Double.toString(refusedRate) : "", Long.toString(Math.max(0, cycleMillis)), Long.toString(epochAgoMillis));
        if (reply == null) {
            return OptionalLong.empty();
        }
        if (paced) {
            h.moments = h.moments.withRefusedRate(refusedRate);
        }
        return OptionalLong.of(Math.max(0, number(reply)));
    }

    /** The host's hash and streaks as stored, with Redis's now (or the caller's): for a caller that converts moments itself. */
    static final class Raw {
        final long serverNow;
        final java.util.Map<String, String> fields;
        final List<String> streaks;

        Raw(long serverNow, java.util.Map<String, String> fields, List<String> streaks) {
            this.serverNow = serverNow;
            this.fields = fields;
            this.streaks = streaks;
        }

        /** A moment field's offset from the read's now, or empty when the field is not set. */
        OptionalLong offset(String field) {
            String value = fields.get(field);
            if (value == null) {
                return OptionalLong.empty();
            }
            try {
                return OptionalLong.of(Long.parseLong(value) - serverNow);
            } catch (NumberFormatException e) {
                return OptionalLong.empty();
            }
        }
    }

    Optional<Raw> readRaw(String host) {
        try {
            return readRawUnguarded(host);
        } catch (RuntimeException e) {
            AgentLog.failure("reading the fleet store's answer to readRaw", e); // a reply this version cannot read
            return Optional.<Raw>empty();
        }
    }

    private Optional<Raw> readRawUnguarded(String host) {
        Host h = host(host);
        Object reply = run(h, FleetScripts.READ, Arrays.asList(h.hash, h.streaks), 0);
        if (reply == null) {
            return Optional.empty();
        }
        List<?> parts = (List<?>) reply;
        List<?> flat = (List<?>) parts.get(1);
        java.util.Map<String, String> fields = new java.util.HashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            fields.put(text(flat.get(i)), text(flat.get(i + 1)));
        }
        List<String> streaks = new ArrayList<>();
        for (Object stored : (List<?>) parts.get(2)) {
            streaks.add(text(stored));
        }
        return Optional.of(new Raw(Long.parseLong(text(parts.get(0))), fields, streaks));
    }

    /** Everything the fleet knows of {@code host}; empty when Redis is unavailable. */
    public Optional<SharedKnowledge> read(String host) {
        try {
            return readUnguarded(host);
        } catch (RuntimeException e) {
            AgentLog.failure("reading the fleet store's answer to read", e); // a reply this version cannot read
            return Optional.<SharedKnowledge>empty();
        }
    }

    private Optional<SharedKnowledge> readUnguarded(String host) {
        Optional<Raw> read = readRawUnguarded(host);
        if (!read.isPresent()) {
            return Optional.empty();
        }
        long localNow = clock.millis();
        long serverNow = read.get().serverNow;
        java.util.Map<String, String> fields = read.get().fields;
        List<StreakRecord> streaks = new ArrayList<>();
        for (String stored : read.get().streaks) {
            StreakRecord streak = StreakRecord.decode(stored, serverNow);
            if (streak != null) {
                streaks.add(streak);
            }
        }
        SharedKnowledge.Learned learned = null;
        if (fields.containsKey("learned-at")) {
            learned = new SharedKnowledge.Learned(fields.containsKey("ceiling") ? OptionalInt.of((int) longField(fields, "ceiling", 0))
                    : OptionalInt.empty(), doubleField(fields, "rate"), longField(fields, "cycle", 0),
                    serverNow - longField(fields, "epoch", serverNow),
                    Math.max(0, serverNow - longField(fields, "learned-at", serverNow)));
        }
        SharedKnowledge.OpenStreak open = null;
        if (fields.containsKey("streak-start")) {
            String header = fields.get("streak-header");
            open = new SharedKnowledge.OpenStreak(Math.max(0, serverNow - longField(fields, "streak-start", serverNow)),
                    header == null || "-".equals(header) ? OptionalLong.empty() : OptionalLong.of(longField(fields, "streak-header", 0)),
                    serverNow - longField(fields, "streak-sent", serverNow), (int) longField(fields, "streak-refusals", 1),
                    "1".equals(fields.get("streak-paced")));
        }
        OptionalLong costsSince = fields.containsKey("costs-since")
                ? OptionalLong.of(serverNow - longField(fields, "costs-since", serverNow)) : OptionalLong.empty();
        return Optional.of(new SharedKnowledge(localNow,
                local(localNow, serverNow, longField(fields, "nb", 0)),
                local(localNow, serverNow, longField(fields, "next", 0)),
                local(localNow, serverNow, longField(fields, "hold", 0)),
                fields.containsKey("hold-reason") ? fields.get("hold-reason") : "",
                longField(fields, "holds", 0), longField(fields, "refusals", 0), learned, open, streaks, costsSince));
    }

    /**
     * The host's shared moments as last refreshed, without a round trip; asking also keeps them
     * refreshed. Before the first refresh, and while Redis is unavailable, they say nothing is owed.
     */
    public Moments cached(String host) {
        Host h = host(host);
        h.asked(clock.millis(), 0);
        return h.moments;
    }

    /**
     * How soon a host's successes counted here must reach Redis, so that another JVM's refusal reads
     * the fleet's ceiling to within about 1% of the window. On a window of a minute (the default) the
     * refresh is soon enough, and a busy host asks for no trip of its own: with those trips, 40 a
     * second, the store's thread took 2% of a busy client's processor time on loopback.
     */
    static long earlyFlushMillis(long windowMillis) {
        return Math.max(EARLY_FLUSH_MILLIS, windowMillis / 80);
    }

    /** Stops the refresher and closes the connections. */
    @Override
    public void close() {
        refresher.shutdownNow();
        link.close();
    }

    /**
     * The shared moments of one host on this JVM's clock, and the rate the fleet's pace was last
     * refused at (0 when it has none). A host is quiet when nothing is owed at {@code now}: no
     * not-before, no hold, no booked slot ahead, no pace. Only then may a request skip the trip.
     */
    public static final class Moments {
        static final Moments NOTHING_OWED = new Moments(0, 0, 0, 0, 0, "", false, null);

        private final long refreshedAtMillis;
        private final long notBeforeMillis;
        private final long holdUntilMillis;
        private final long nextSlotMillis;
        private final double refusedRate;
        private final String holdReason;
        final boolean streakOpen;
        private final LearnedPace learned;

        Moments(long refreshedAtMillis, long notBeforeMillis, long holdUntilMillis, long nextSlotMillis,
                double refusedRate, String holdReason, boolean streakOpen, LearnedPace learned) {
            this.streakOpen = streakOpen;
            this.learned = learned;
            this.refreshedAtMillis = refreshedAtMillis;
            this.notBeforeMillis = notBeforeMillis;
            this.holdUntilMillis = holdUntilMillis;
            this.nextSlotMillis = nextSlotMillis;
            this.refusedRate = refusedRate;
            this.holdReason = holdReason;
        }

        public boolean isQuietAt(long now) {
            return refusedRate <= 0 && now >= notBeforeMillis && now >= holdUntilMillis && now >= nextSlotMillis;
        }

        public boolean isHeldAt(long now) {
            return now < holdUntilMillis;
        }

        public long refreshedAtMillis() {
            return refreshedAtMillis;
        }

        public long notBeforeMillis() {
            return notBeforeMillis;
        }

        public long holdUntilMillis() {
            return holdUntilMillis;
        }

        public String holdReason() {
            return holdReason;
        }

        public long nextSlotMillis() {
            return nextSlotMillis;
        }

        public double refusedRate() {
            return refusedRate;
        }

        /** What the fleet last learned, as refreshed; null when it has learned nothing. */
        public LearnedPace learned() {
            return learned;
        }

        /** Whether the fleet has a refusal streak open: only then may a success end one, at the cost of a trip. */
        public boolean isStreakOpen() {
            return streakOpen;
        }

        Moments withNotBefore(long moment) {
            return new Moments(refreshedAtMillis, Math.max(notBeforeMillis, moment), holdUntilMillis, nextSlotMillis,
                    refusedRate, holdReason, streakOpen, learned);
        }

        Moments withHold(long moment, String reason) {
            boolean later = moment > holdUntilMillis;
            return new Moments(refreshedAtMillis, Math.max(notBeforeMillis, moment), Math.max(holdUntilMillis, moment),
                    nextSlotMillis, refusedRate, later ? reason : holdReason, streakOpen, learned);
        }

        Moments withRefusedRate(double rate) {
            return new Moments(refreshedAtMillis, notBeforeMillis, holdUntilMillis, nextSlotMillis, rate, holdReason, streakOpen, learned);
        }

        Moments withStreakOpen() {
            return new Moments(refreshedAtMillis, notBeforeMillis, holdUntilMillis, nextSlotMillis, refusedRate, holdReason, true, learned);
        }

        Moments withStreakClosed() {
            return new Moments(refreshedAtMillis, notBeforeMillis, holdUntilMillis, nextSlotMillis, refusedRate, holdReason, false, learned);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "Moments[at %d: notBefore %d, hold %d, next %d, refused rate %.3f/s]",
                    refreshedAtMillis, notBeforeMillis, holdUntilMillis, nextSlotMillis, refusedRate);
        }
    }

    /**
     * What the fleet learned, on this JVM's clock: the rate its pace was refused at (0: no pace), the
     * curve's cycle and epoch, when it was learned, and the ceiling (empty: none).
     */
    public static final class LearnedPace {
        private final double refusedRate;
        private final long cycleMillis;
        private final long epochMillis;
        private final long learnedAtMillis;
        private final OptionalInt ceiling;

        LearnedPace(double refusedRate, long cycleMillis, long epochMillis, long learnedAtMillis, OptionalInt ceiling) {
            this.refusedRate = refusedRate;
            this.cycleMillis = cycleMillis;
            this.epochMillis = epochMillis;
            this.learnedAtMillis = learnedAtMillis;
            this.ceiling = ceiling;
        }

        public boolean isPaced() {
            return refusedRate > 0 && cycleMillis > 0;
        }

        public double refusedRate() {
            return refusedRate;
        }

        public long cycleMillis() {
            return cycleMillis;
        }

        public long epochMillis() {
            return epochMillis;
        }

        public long learnedAtMillis() {
            return learnedAtMillis;
        }

        public OptionalInt ceiling() {
            return ceiling;
        }
    }

    private static final class Host {
        final String key;
        final String hash;
        final String streaks;
        final String admitted;
        final AtomicInteger pendingAdmitted = new AtomicInteger();
        volatile long windowMillis = 60_000;
        volatile long lastAskedMillis;
        volatile Moments moments = Moments.NOTHING_OWED;
        /** Until then, on System.nanoTime: Redis refused a command of this host's, which stays in this JVM meanwhile. */
        volatile long keptLocalUntilNanos;
        private static final java.util.concurrent.atomic.AtomicLongFieldUpdater<Host> KEPT_LOCAL =
                java.util.concurrent.atomic.AtomicLongFieldUpdater.newUpdater(Host.class, "keptLocalUntilNanos");

        Host(String key, String hash) {
            this.key = key;
            this.hash = hash;
            this.streaks = hash + ":streaks";
            this.admitted = hash + ":admitted";
        }

        boolean isKeptLocal() {
            long until = keptLocalUntilNanos;
            return until != 0 && until - System.nanoTime() > 0;
        }

        /** True once, for the caller that first finds the host's time in this JVM over. */
        boolean keepingLocalEnded() {
            long until = keptLocalUntilNanos;
            return until != 0 && until - System.nanoTime() <= 0 && KEPT_LOCAL.compareAndSet(this, until, 0L);
        }

        /** Written only when it changes much: every request of every thread asks, and shared writes cost them all. */
        void asked(long now, long window) {
            if (now - lastAskedMillis >= ASKED_GRAIN_MILLIS) {
                lastAskedMillis = now;
            }
            if (window > 0 && window != windowMillis) {
                windowMillis = window;
            }
        }
    }

    private Host host(String key) {
        Host h = hosts.get(key);
        return h != null ? h : hosts.computeIfAbsent(key, k -> new Host(k, "retry-after:{" + fleet + "}:host:" + k));
    }

    /**
     * One script, or null when unavailable. {@code pending} successes were taken from the host's
     * count for this trip: if it fails, they go back, so none is lost to a Redis that was down.
     */
    private Object run(Host h, FleetScripts script, List<String> keys, int pending, String... args) {
        return runAt(clock.millis(), h, script, keys, pending, args);
    }

    /** {@code callerNow} is the script's now only when the store is timed by its caller: see {@link Options#timedByCaller}. */
    private Object runAt(long callerNow, Host h, FleetScripts script, List<String> keys, int pending, String... args) {
        Object reply = null;
        if (h.keepingLocalEnded()) {
            for (java.util.function.Consumer<String> merge : hostRestored) {
                merge.accept(h.key); // what this JVM learned meanwhile goes first, as after an outage
            }
        }
        if (!h.isKeptLocal()) {
            List<String> argList = new ArrayList<>(args.length + 1);
            argList.addAll(Arrays.asList(args));
            argList.add(clockArgument(callerNow));
            RedisLink.Command<Object> command = jedis -> script.run(jedis, keys, argList);
            boolean[] repaired = new boolean[1];
            reply = link.call(command, null, error -> repaired[0] = refused(h, error));
            if (repaired[0]) {
                reply = link.call(command, null, error -> refused(h, error)); // once more, on the keys written anew
            }
        }
        if (reply == null && pending > 0) {
            h.pendingAdmitted.addAndGet(pending);
        }
        return reply;
    }

    /**
     * Redis refused a command of {@code h}'s for its data. A key of another type in the agent's own
     * key space (another writer's, or garbage) is deleted, to be written anew by the next command;
     * anything else (out of memory, writes stopped) keeps the host in this JVM for a while.
     */
    private boolean refused(Host h, redis.clients.jedis.exceptions.JedisDataException error) {
        if ("WRONGTYPE".equals(CommandRefusals.code(error))) {
            int replaced = link.call(jedis -> deleteWrongTyped(jedis, h), 0, ignored -> { });
            if (replaced > 0) {
                link.sayRefused(error, "a key of the agent's held another type; deleted, to be written anew");
                return true;
            }
        }
        h.keptLocalUntilNanos = System.nanoTime() + keptLocalNanos;
        link.sayRefused(error, "the hosts it concerns are kept in this JVM's own knowledge meanwhile, asking Redis again every "
                + TimeUnit.NANOSECONDS.toSeconds(keptLocalNanos) + " s");
        return false;
    }

    /** The host's keys whose type is not the one the scripts keep there, deleted; returns how many. */
    private static int deleteWrongTyped(Jedis jedis, Host h) {
        String[][] expected = {{h.hash, "hash"}, {h.streaks, "list"}, {h.admitted, "hash"}};
        int deleted = 0;
        for (String[] key : expected) {
            String type = jedis.type(key[0]);
            if (!"none".equals(type) && !key[1].equals(type)) {
                deleted += (int) jedis.del(key[0]);
            }
        }
        return deleted;
    }

    private void refreshSafely() {
        try {
            refresh();
        } catch (RuntimeException | LinkageError e) {
            AgentLog.failure("refreshing the fleet store's moments", e);
        }
    }

    /** One pipelined trip for every host asked about lately: their moments, and the successes counted meanwhile. */
    void refresh() {
        long now = clock.millis();
        List<Host> due = new ArrayList<>();
        for (Host h : hosts.values()) {
            if (h.isKeptLocal()) {
                continue; // Redis refused it lately: asked again once that is over
            }
            if (now - h.lastAskedMillis <= INTEREST_MILLIS) {
                due.add(h);
            } else if (now - h.lastAskedMillis > 10 * INTEREST_MILLIS && h.pendingAdmitted.get() == 0) {
                hosts.remove(h.key, h); // forgotten here; Redis keeps it until its keys expire
            }
        }
        if (due.isEmpty() || !link.isAvailable()) {
            return;
        }
        int[] pending = new int[due.size()];
        List<Object> replies;
        synchronized (countingTrips) {
            for (int i = 0; i < due.size(); i++) {
                pending[i] = due.get(i).pendingAdmitted.getAndSet(0);
            }
            replies = link.call(jedis -> pipelineMoments(jedis, due, pending), null);
        }
        if (replies == null) {
            for (int i = 0; i < due.size(); i++) {
                due.get(i).pendingAdmitted.addAndGet(pending[i]);
            }
            return;
        }
        long after = clock.millis();
        for (int i = 0; i < due.size(); i++) {
            Host h = due.get(i);
            if (replies.get(i) instanceof redis.clients.jedis.exceptions.JedisDataException) {
                h.pendingAdmitted.addAndGet(pending[i]);
                refused(h, (redis.clients.jedis.exceptions.JedisDataException) replies.get(i));
                continue;
            }
            List<?> values = (List<?>) replies.get(i);
            String rate = text(values.get(3));
            String learnedAgo = text(values.get(8));
            LearnedPace pace = null;
            if (!learnedAgo.isEmpty()) {
                String ceiling = text(values.get(9));
                String epochAgo = text(values.get(7));
                String cycle = text(values.get(6));
                // Fields as stored: another writer's garbage in them reads as none.
                OptionalLong ceilingValue = parsedLong(ceiling);
                pace = new LearnedPace(rate.isEmpty() ? 0 : parseRate(rate), Math.max(0, parsedLong(cycle).orElse(0)),
                        epochAgo.isEmpty() ? after : after - Long.parseLong(epochAgo), after - Long.parseLong(learnedAgo),
                        ceilingValue.isPresent() ? OptionalInt.of((int) Math.max(0, Math.min(Integer.MAX_VALUE, ceilingValue.getAsLong())))
                                : OptionalInt.empty());
            }
            h.moments = new Moments(after, after + Math.max(0, number(values.get(0))), after + Math.max(0, number(values.get(1))),
                    after + Math.max(0, number(values.get(2))), rate.isEmpty() ? 0 : parseRate(rate), text(values.get(4)),
                    number(values.get(5)) == 1, pace);
        }
    }

    private List<Object> pipelineMoments(Jedis jedis, List<Host> due, int[] pending) {
        if (!momentsLoaded) {
            jedis.scriptLoad(FleetScripts.MOMENTS.text());
            momentsLoaded = true;
        }
        Pipeline pipeline = jedis.pipelined();
        List<Response<Object>> responses = new ArrayList<>(due.size());
        for (int i = 0; i < due.size(); i++) {
            Host h = due.get(i);
            responses.add(pipeline.evalsha(FleetScripts.MOMENTS.sha(), Arrays.asList(h.hash, h.admitted),
                    Arrays.asList(Integer.toString(pending[i]), Long.toString(bucketMillis(h.windowMillis)),
                            Long.toString(h.windowMillis), clockArgument(clock.millis()))));
        }
        pipeline.sync();
        List<Object> replies = new ArrayList<>(due.size());
        for (Response<Object> response : responses) {
            try {
                replies.add(response.get());
            } catch (redis.clients.jedis.exceptions.JedisNoScriptException e) {
                momentsLoaded = false; // flushed by someone meanwhile: the next round loads it again
                return null;
            } catch (redis.clients.jedis.exceptions.JedisDataException e) {
                if (CommandRefusals.isOutage(e)) {
                    throw e;
                }
                replies.add(e); // this host's refusal (out of memory, a key of another type): the others' replies stand
            }
        }
        return replies;
    }

    private String clockArgument(long callerNow) {
        return timedByCaller ? Long.toString(callerNow) : "";
    }

    /** A bucket is a two-hundredth of the window, at least 100 ms: fine enough for the ceiling, few enough fields. */
    static long bucketMillis(long windowMillis) {
        return Math.max(100, windowMillis / 200);
    }

    private static long local(long localNow, long serverNow, long serverMoment) {
        return localNow + Math.max(0, serverMoment - serverNow);
    }

    private static long number(Object value) {
        if (value instanceof Long) {
            return (Long) value;
        }
        return Long.parseLong(text(value));
    }

    private static String text(Object value) {
        return value instanceof byte[] ? new String((byte[]) value, java.nio.charset.StandardCharsets.UTF_8) : String.valueOf(value);
    }

    private static long longField(java.util.Map<String, String> fields, String name, long absent) {
        String value = fields.get(name);
        if (value == null) {
            return absent;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            return absent;
        }
    }

    /** A number as stored, or empty when there is none or it is not one ('-', another writer's garbage). */
    private static OptionalLong parsedLong(String text) {
        try {
            return text == null || text.isEmpty() || "-".equals(text) ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(text));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    private static double doubleField(java.util.Map<String, String> fields, String name) {
        String value = fields.get(name);
        return value == null ? 0 : parseRate(value);
    }

    private static double parseRate(String text) {
        try {
            double rate = Double.parseDouble(text);
            return rate > 0 && !Double.isInfinite(rate) ? rate : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static String rate(double rate) {
        return rate > 0 && !Double.isInfinite(rate) && !Double.isNaN(rate) ? Double.toString(rate) : "0";
    }
}
