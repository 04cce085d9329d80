package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.config.RedisAddress;
import dev.retryafter.agent.config.StoreSettings;
import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.engine.DaemonThreads;
import dev.retryafter.agent.engine.knowledge.FinishedStreak;
import dev.retryafter.agent.engine.knowledge.HostKnowledge;
import dev.retryafter.agent.engine.knowledge.InMemoryKnowledgeStore;
import dev.retryafter.agent.engine.knowledge.KnowledgeStore;
import dev.retryafter.agent.engine.knowledge.OpenStreak;
import dev.retryafter.agent.engine.learn.PaceSchedule;
import dev.retryafter.agent.log.AgentLog;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The engine's knowledge store, shared by a fleet on Redis, over this JVM's own. Every operation goes
 * to both: to the local store (what the engine reads on every request, and carries on with while
 * Redis is unavailable) and, as the same operation's change to the knowledge, to Redis, whose answers
 * come back into the local store. Both are merges, so running an operation twice is safe. The fleet is
 * one client of the portal: one schedule per host ({@link #reserveSlot} books on Redis), one streak
 * (only its first refusal teaches), and one ceiling (a refusal reads the successes of every JVM,
 * counted in Redis with each trip, never a trip of their own).
 *
 * <p>On Redis each operation is one script of {@link FleetScripts}, atomic and timed by Redis's clock,
 * through {@link #call}, which answers within about the timeout or with null ("unavailable"). Keys,
 * under the fleet's hash tag so a cluster keeps a fleet in one slot: {@code retry-after:{FLEET}:host:HOST:PORT}
 * (a hash), {@code ...:streaks} (finished streaks) and {@code ...:admitted} (successes per bucket of
 * server time). {@link #seen} answers without a round trip from what a background thread reads every
 * {@code refreshMillis}, a trip that also carries the successes counted meanwhile.
 */
public final class RedisKnowledgeStore implements KnowledgeStore, AutoCloseable {

    /** Which hosts are the fleet's, and each one's window: from the policies. */
    public interface HostRules {
        boolean isShared(String host);

        long windowMillis(String host);
    }

    /** A host not asked about for this long is no longer refreshed. */
    static final long INTEREST_MILLIS = 60_000;
    static final long EARLY_FLUSH_MILLIS = 25;
    /** How finely a host's last use is kept: it only decides, to the minute, which hosts are refreshed. */
    private static final long ASKED_GRAIN_MILLIS = 1000;
    /** Two readings of one learning, one converted through Redis: closer than this, they are the same. */
    private static final long SAME_MOMENT_MILLIS = 50;

    /** Tests ask it whether Redis is available, and add their own listeners for its return. */
    final RedisLink link;
    private final String fleet;
    private final KnowledgeStore local;
    private final Clock clock;
    private final HostRules rules;
    private final Options options;
    private final ConcurrentHashMap<String, Host> hosts = new ConcurrentHashMap<>();
    private final ScheduledExecutorService refresher;
    /** A trip asked of the refresher and not yet made: successes counted meanwhile go with it. */
    private final AtomicBoolean flushQueued = new AtomicBoolean();
    private volatile long lastEarlyFlushNanos = System.nanoTime() - TimeUnit.SECONDS.toNanos(1);
    /** Held while a trip carries this JVM's counted successes: a refusal's ceiling waits for a refresh that took the count. */
    private final Object countingTrips = new Object();
    private volatile boolean readLoaded;

    /** The options a fleet store is made with; the defaults suit a loopback or same-zone Redis. */
    public static final class Options {
        int timeoutMillis = RedisLink.DEFAULT_TIMEOUT_MILLIS;
        long ttlMillis = TimeUnit.DAYS.toMillis(7); // the state file's default age limit
        long refreshMillis = 200;
        boolean countsAtOnce = true;
        boolean timedByCaller;
        boolean readThrough;
        long steadyMillis = RedisLink.DEFAULT_STEADY_MILLIS;
        /** After Redis refused a host's command (out of memory, say): a refusal that lasts costs a trip every 30 s, not every request. */
        long keptLocalMillis = 30_000;

        /** For tests in virtual time only: the scripts take "now" from the caller instead of Redis's {@code TIME}. */
        public Options timedByCaller() {
            timedByCaller = true;
            return this;
        }

        /** For the store contract only: every {@link #read} is Redis's answer, far too slow for requests. */
        public Options readingThrough() {
            readThrough = true;
            return this;
        }

        public Options timeoutMillis(int millis) {
            if (millis < 1) {
                throw new IllegalArgumentException("the store timeout must be at least 1 ms");
            }
            timeoutMillis = millis;
            return this;
        }

        public Options ttlMillis(long millis) {
            ttlMillis = Math.max(1000, millis);
            return this;
        }

        /** A success's count waits for the next refresh or operation; for a test of the request path alone. */
        public Options countsOnlyWithTheRefresh() {
            countsAtOnce = false;
            return this;
        }

        public Options refreshMillis(long millis) {
            refreshMillis = Math.max(10, millis);
            return this;
        }

        Options keptLocalMillis(long millis) {
            keptLocalMillis = Math.max(1, millis);
            return this;
        }

        /** How long Redis must answer steadily before an outage is over and said to be. */
        Options steadyMillis(long millis) {
            steadyMillis = Math.max(1, millis);
            return this;
        }
    }

    /** The fleet's answer to a refusal at {@code at}: its streak as it stands, the ceiling, whether this refusal opened the streak. */
    static final class FleetRefusal {
        final long at;
        final OpenStreak streak;
        final int ceiling;
        /** The span the fleet counted the ceiling over: since its previous refusal, if within the window, else the window. */
        final long spanMillis;
        final boolean first;

        /** REFUSAL's {@code answer}, read at {@code at} ({@code refusal.lua}). */
        FleetRefusal(long at, List<?> answer) {
            this.at = at;
            this.streak = KnowledgeEncoding.openStreak(answer, at);
            this.ceiling = (int) KnowledgeEncoding.integer(answer.get(0));
            this.spanMillis = Math.max(1, KnowledgeEncoding.integer(answer.get(8)));
            this.first = KnowledgeEncoding.integer(answer.get(2)) == 1;
        }
    }

    /**
     * With {@code local} as this JVM's copy (a state file's store, say, so that what this JVM knew
     * outlives it). Starts no connection yet: the first operation connects, and a Redis not there yet
     * only opens the circuit.
     */
    public static RedisKnowledgeStore connect(RedisAddress address, String fleet, KnowledgeStore local, Clock clock, HostRules rules,
                                              Options options) {
        return new RedisKnowledgeStore(address, fleet, local, clock, rules, options, RedisLink.Events.LOG);
    }

    RedisKnowledgeStore(RedisAddress address, String fleet, KnowledgeStore local, Clock clock, HostRules rules, Options options,
                        RedisLink.Events events) {
        this.fleet = StoreSettings.checkedFleet(fleet);
        this.local = local;
        this.clock = Objects.requireNonNull(clock);
        this.rules = rules;
        this.options = options;
        this.link = new RedisLink(address, options.timeoutMillis, options.steadyMillis, events, RedisLink.REMINDER_MILLIS);
        link.onRestored(this::mergeBack);
        link.onRestored(() -> readLoaded = false); // a Redis restarted empty has no scripts either
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, new DaemonThreads("retry-after-agent-fleet-refresh"));
        executor.scheduleWithFixedDelay(this::refreshSafely, options.refreshMillis, options.refreshMillis, TimeUnit.MILLISECONDS);
        this.refresher = executor;
    }

    @Override
    public HostKnowledge read(String host) {
        if (options.readThrough) {
            return readThrough(host);
        }
        if (rules.isShared(host)) {
            copySeen(host);
        }
        return local.read(host);
    }

    @Override
    public HostKnowledge readThrough(String host) {
        HostKnowledge fleets = rules.isShared(host) ? readFleet(host) : null;
        return fleets != null ? fleets : local.read(host);
    }

    @Override
    public long reserveSlot(String host, long now, long intervalMillis, long maxWaitMillis) {
        if (!rules.isShared(host) || !link.isAvailable()) {
            return local.reserveSlot(host, now, intervalMillis, maxWaitMillis);
        }
        HostKnowledge seen = seen(host);
        // Never refreshed yet (this JVM's first requests): only Redis can say whether the fleet holds the host.
        if (!options.readThrough && intervalMillis <= 0 && seen != null && !seen.pace().isPresent() && seen.owesNothingAt(now)
                && seen.nextSlot().orElse(now) <= now && local.read(host).owesNothingAt(now)) {
            return 0; // no pace, no wait, no hold, here or in the fleet as last refreshed: no round trip
        }
        OptionalLong wait = reserve(host, now, intervalMillis, maxWaitMillis, rules.windowMillis(host));
        long mine = local.reserveSlot(host, now, intervalMillis, maxWaitMillis); // this JVM's schedule, should Redis go
        if (!wait.isPresent()) {
            return mine;
        }
        // This JVM's own not-before stands even when Redis answers without it (a refusal's wait that never
        // reached Redis is still this JVM's floor); its schedule does not: the fleet's booking spaces every JVM's.
        long floor = local.read(host).notBefore().orElse(now) - now;
        return Math.max(wait.getAsLong(), Math.min(floor, maxWaitMillis));
    }

    @Override
    public void imposeNotBefore(String host, long moment) {
        everywhere(host, store -> store.imposeNotBefore(host, moment));
    }

    @Override
    public void holdUntil(String host, long moment, String reason) {
        everywhere(host, store -> store.holdUntil(host, moment, reason));
    }

    @Override
    public OpenStreak recordRefusal(String host, long now, long sentAt, OptionalLong headerMillis, boolean whilePaced) {
        if (!rules.isShared(host)) {
            return local.recordRefusal(host, now, sentAt, headerMillis, whilePaced);
        }
        Host h = state(host);
        synchronized (h) {
            FleetRefusal refusal = refusal(host, now, rules.windowMillis(host), sentAt, headerMillis, whilePaced);
            h.refusal = refusal;
            if (refusal == null) {
                return local.recordRefusal(host, now, sentAt, headerMillis, whilePaced);
            }
            // This JVM's copy follows the fleet's streak: the same one is counted up to the fleet's count
            // (every JVM's refusals set the backoff's exponent); another, older one gives way to it.
            OpenStreak streak = refusal.streak;
            Optional<OpenStreak> mine = local.read(host).openStreak();
            if (mine.isPresent() && mine.get().startedAtMillis() == streak.startedAtMillis()) {
                for (int i = mine.get().refusals(); i < streak.refusals(); i++) {
                    local.recordRefusal(host, now, streak.lastRefusedSentMillis(), OptionalLong.empty(), false);
                }
            } else {
                local.merge(host, KnowledgeEncoding.streaks(Optional.of(streak), Collections.<FinishedStreak>emptyList()));
            }
            return streak;
        }
    }

    /** Counted here and, with the next trip to Redis, into the fleet's count: no round trip of its own. */
    @Override
    public void recordAdmitted(String host, long now) {
        local.recordAdmitted(host, now);
        if (rules.isShared(host)) {
            admitted(host, rules.windowMillis(host));
        }
    }

    /** The fleet's ceiling, as Redis counted it at this JVM's refusal; this JVM's own only when Redis did not answer. */
    @Override
    public int ceilingBefore(String host, long refusalAt, long windowMillis) {
        FleetRefusal seen = refusalAt(host, refusalAt);
        return seen != null ? seen.ceiling : local.ceilingBefore(host, refusalAt, windowMillis);
    }

    @Override
    public long ceilingSpanMillis(String host, long refusalAt, long windowMillis) {
        FleetRefusal seen = refusalAt(host, refusalAt);
        return seen != null ? seen.spanMillis : windowMillis;
    }

    @Override
    public Optional<StreakEnd> recordRecovery(String host, long sentAt) {
        if (!rules.isShared(host) || !mayEndStreak(host, local.read(host))) {
            // The happy path: no streak open anywhere we know of. Not under the host's lock, which every
            // success would otherwise take; a refusal recorded just after is as if it came after this success.
            return local.recordRecovery(host, sentAt);
        }
        synchronized (state(host)) {
            long now = clock.millis();
            HostKnowledge before = local.read(host);
            if (!mayEndStreak(host, before) || !link.isAvailable()) {
                return local.recordRecovery(host, sentAt);
            }
            Optional<FinishedStreak> ended = recovery(host, now, sentAt);
            Optional<StreakEnd> mine = local.recordRecovery(host, sentAt);
            if (ended == null || !ended.isPresent()) {
                // Unavailable: this JVM's streak is what there is. Over already: another JVM ended it, and
                // this JVM's copy of it ends too, but the ending is that JVM's to report.
                return ended == null ? mine : Optional.<StreakEnd>empty();
            }
            if (mine.isPresent()) {
                return mine;
            }
            // This JVM saw none of the streak: it learns of its end from the fleet.
            local.merge(host, KnowledgeEncoding.streaks(Optional.<OpenStreak>empty(), Collections.singletonList(ended.get())));
            return Optional.of(new StreakEnd(ended.get(), before, local.read(host)));
        }
    }

    /** What a refusal taught, at the fleet's ceiling; only the fleet streak's first refusal teaches. */
    @Override
    public void learn(String host, long learnedAt, Optional<PaceSchedule> pace, OptionalInt ceiling) {
        FleetRefusal seen = refusalAt(host, learnedAt);
        if (seen != null && ceiling.isPresent()) {
            Host.REFUSAL.compareAndSet(state(host), seen, null);
            if (!seen.first) {
                return;
            }
        }
        everywhere(host, store -> store.learn(host, learnedAt, pace, ceiling));
    }

    @Override
    public void forgetCostsBefore(String host, long moment) {
        everywhere(host, store -> store.forgetCostsBefore(host, moment));
    }

    @Override
    public void distrustHints(String host, String why) {
        everywhere(host, store -> store.distrustHints(host, why));
    }

    @Override
    public void merge(String host, HostKnowledge known) {
        local.merge(host, known);
        if (rules.isShared(host)) {
            mergeIntoFleet(host, known);
        }
    }

    @Override
    public Map<String, HostKnowledge> snapshot() {
        Map<String, HostKnowledge> mine = local.snapshot();
        if (!options.readThrough) {
            return mine;
        }
        Map<String, HostKnowledge> read = new HashMap<>();
        for (String host : mine.keySet()) {
            read.put(host, read(host));
        }
        return read;
    }

    /** A host this JVM keeps to itself ({@code share = local}) is released here; a fleet's hold is the fleet's. */
    @Override
    public boolean releaseHold(String host, long now) {
        return !rules.isShared(host) && local.releaseHold(host, now);
    }

    /** This JVM forgets the host; the fleet keeps it until its keys expire. */
    @Override
    public void forget(String host) {
        local.forget(host);
        Host h = hosts.get(host);
        if (h != null) {
            h.refusal = null;
            h.copied = null;
        }
    }

    @Override
    public void close() {
        refresher.shutdownNow();
        link.close();
    }

    String hashKey(String host) {
        return state(host).hash;
    }

    /** Redis is back (perhaps restarted empty): what this JVM learned meanwhile goes to the fleet. */
    private void mergeBack() {
        for (Map.Entry<String, HostKnowledge> entry : local.snapshot().entrySet()) {
            if (rules.isShared(entry.getKey())) {
                mergeIntoFleet(entry.getKey(), entry.getValue());
            }
        }
    }

    /** {@code operation} on this JVM's copy and, for a shared host, run on nothing to make its change, merged into the fleet's. */
    private void everywhere(String host, Consumer<KnowledgeStore> operation) {
        operation.accept(local);
        if (rules.isShared(host)) {
            InMemoryKnowledgeStore change = new InMemoryKnowledgeStore();
            operation.accept(change);
            mergeIntoFleet(host, change.read(host));
        }
    }

    /** The fleet's not-before, hold and learning as last seen, into this JVM's copy once per refresh; streaks come with answers. */
    private void copySeen(String host) {
        Host h = state(host).asked(clock.millis(), 0);
        HostKnowledge seen = h.seen;
        if (seen == null || h.copied == seen) {
            return; // never refreshed, or copied already
        }
        long now = clock.millis();
        HostKnowledge known = local.read(host);
        long notBefore = seen.notBefore().orElse(Long.MIN_VALUE);
        if (notBefore > now && notBefore > known.notBefore().orElse(Long.MIN_VALUE) + SAME_MOMENT_MILLIS) {
            local.imposeNotBefore(host, notBefore);
        }
        if (seen.isHeldAt(now) && seen.holdUntil().getAsLong() > known.holdUntil().orElse(Long.MIN_VALUE) + SAME_MOMENT_MILLIS) {
            local.holdUntil(host, seen.holdUntil().getAsLong(), seen.holdReason().orElse(""));
        }
        long learnedAt = seen.paceLearnedAt().orElse(Long.MIN_VALUE);
        if (seen.paceLearnedAt().isPresent() && learnedAt > known.paceLearnedAt().orElse(Long.MIN_VALUE) + SAME_MOMENT_MILLIS) {
            local.learn(host, learnedAt, seen.pace(), seen.learnedCeiling());
        }
        h.copied = seen;
    }

    /** Whether a success may end a streak: this JVM's, or the fleet's as last seen, is open. */
    private boolean mayEndStreak(String host, HostKnowledge mine) {
        if (options.readThrough || mine.openStreak().isPresent()) {
            return true;
        }
        HostKnowledge seen = seen(host);
        return seen != null && seen.openStreak().isPresent();
    }

    /** The fleet's answer to this JVM's refusal at {@code moment}, if that is the latest it saw of {@code host}. */
    private FleetRefusal refusalAt(String host, long moment) {
        Host h = rules.isShared(host) ? hosts.get(host) : null;
        FleetRefusal seen = h != null ? h.refusal : null;
        return seen != null && seen.at == moment ? seen : null;
    }

    // ---- the scripts, each read by KnowledgeEncoding: null when Redis is unavailable

    /** The wait for the fleet's next slot ({@code reserve.lua}). */
    OptionalLong reserve(String host, long now, long intervalMillis, long maxWaitMillis, long windowMillis) {
        Host h = state(host).asked(clock.millis(), windowMillis);
        int pending = h.pendingAdmitted.getAndSet(0);
        Long wait = call(h, FleetScripts.RESERVE, now, pending, (v, base) -> {
            long booked = Math.max(0, KnowledgeEncoding.integer(v.get(0)));
            h.saw(KnowledgeEncoding.reserved(v, base, booked + intervalMillis), true);
            return booked;
        }, Arrays.asList(h.hash, h.admitted), options.ttlMillis, Math.max(0, intervalMillis), Math.max(0, maxWaitMillis), pending,
                bucketMillis(windowMillis), windowMillis);
        return wait == null ? OptionalLong.empty() : OptionalLong.of(wait);
    }

    /** {@code known} merged into the fleet's, as {@link HostKnowledge#mergedWith} merges. False when unavailable. */
    boolean mergeIntoFleet(String host, HostKnowledge known) {
        if (known.equals(HostKnowledge.NONE)) {
            return true;
        }
        Host h = state(host);
        long now = clock.millis();
        List<Object> args = new ArrayList<>(Arrays.<Object>asList(options.ttlMillis, HostKnowledge.MAX_STREAKS));
        args.addAll(KnowledgeEncoding.mergeArguments(known, now));
        return call(h, FleetScripts.MERGE, now, 0, (v, base) -> Boolean.TRUE, Arrays.asList(h.hash, h.streaks), args.toArray()) != null;
    }

    /** A refusal at {@code now} of a request sent at {@code sentAt}, counted into the fleet's streak ({@code refusal.lua}). */
    FleetRefusal refusal(String host, long now, long windowMillis, long sentAt, OptionalLong headerMillis, boolean whilePaced) {
        Host h = state(host).asked(clock.millis(), windowMillis);
        synchronized (countingTrips) { // after any refresh that took this JVM's count: the ceiling must include it
            int pending = h.pendingAdmitted.getAndSet(0);
            return call(h, FleetScripts.REFUSAL, now, pending, (v, base) -> {
                FleetRefusal refusal = new FleetRefusal(now, v);
                h.saw(KnowledgeEncoding.streaks(Optional.of(refusal.streak), Collections.<FinishedStreak>emptyList()), false);
                return refusal;
            }, Arrays.asList(h.hash, h.admitted), options.ttlMillis, pending, bucketMillis(windowMillis), windowMillis, now - sentAt,
                    KnowledgeEncoding.header(headerMillis), KnowledgeEncoding.flag(whilePaced));
        }
    }

    /** The fleet's streak that a success to a request sent at {@code sentAt} ended, if any ({@code recovery.lua}). */
    Optional<FinishedStreak> recovery(String host, long now, long sentAt) {
        Host h = state(host);
        return call(h, FleetScripts.RECOVERY, now, 0, (v, base) -> {
            if (KnowledgeEncoding.integer(v.get(0)) == 0) {
                return Optional.<FinishedStreak>empty(); // sent before the streak began, or another JVM closed it
            }
            HostKnowledge seen = h.seen;
            if (seen != null) {
                h.seen = KnowledgeEncoding.withoutOpenStreak(seen);
            }
            return Optional.of(KnowledgeEncoding.finishedStreak(v, now));
        }, Arrays.asList(h.hash, h.streaks), options.ttlMillis, HostKnowledge.MAX_STREAKS, now - sentAt);
    }

    /** Everything the fleet knows of {@code host}, on this JVM's clock. */
    HostKnowledge readFleet(String host) {
        Host h = state(host);
        return call(h, FleetScripts.READ, clock.millis(), 0, KnowledgeEncoding::decode,
                Arrays.asList(h.hash, h.streaks, h.admitted), 0, bucketMillis(h.windowMillis), h.windowMillis);
    }

    /**
     * What the fleet knew of {@code host} at the last refresh, with what this JVM's trips have told of it
     * since, without a round trip; asking keeps it refreshed. Null before it was first refreshed.
     */
    HostKnowledge seen(String host) {
        return state(host).asked(clock.millis(), 0).seen;
    }

    /**
     * A success from {@code host}: counted here, carried to Redis with the next trip. On a host of a
     * short window, the first success since the last trip also asks the refresher for one soon: an
     * unpaced host makes no trip of its own, and a fleet's first burst is over within a refresh
     * interval, so another JVM's refusal would otherwise read a ceiling short of this JVM's successes
     * (16 of a portal's 20 in 2 s, three JVMs on loopback).
     */
    void admitted(String host, long windowMillis) {
        Host h = state(host).asked(clock.millis(), windowMillis);
        if (h.pendingAdmitted.getAndIncrement() != 0 || !options.countsAtOnce) {
            return;
        }
        long soonest = earlyFlushMillis(windowMillis);
        if (soonest < options.refreshMillis && flushQueued.compareAndSet(false, true)) {
            // At most one such trip every soonest ms: a busy happy host costs Redis a few dozen a second, not one per success.
            long delay = Math.max(0, soonest - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastEarlyFlushNanos));
            if (!RedisLink.schedule(refresher, () -> {
                lastEarlyFlushNanos = System.nanoTime();
                flushQueued.set(false);
                refreshSafely();
            }, delay)) {
                flushQueued.set(false);
            }
        }
    }

    /**
     * How soon successes counted here must reach Redis for another JVM's refusal to read the fleet's
     * ceiling to within about 1% of the window. On the default window of a minute the refresh is soon
     * enough: with trips of their own, 40 a second, the store's thread took 2% of a busy client's
     * processor time on loopback.
     */
    static long earlyFlushMillis(long windowMillis) {
        return Math.max(EARLY_FLUSH_MILLIS, windowMillis / 80);
    }

    /**
     * {@code script} for {@code h} through the link's guarded call, its answer read by {@code answer}
     * (given the reply and this JVM's now as it came); null when unavailable, refused, or unreadable. A
     * host Redis refused lately is not asked at all; once that is over, what this JVM learned meanwhile
     * goes first, as after an outage. The {@code pending} successes taken for this trip go back if it
     * fails. {@code callerNow} is the scripts' now only when the store is timed by its caller.
     */
    private <T> T call(Host h, FleetScripts script, long callerNow, int pending, BiFunction<List<?>, Long, T> answer,
                       List<String> keys, Object... args) {
        if (h.keepingLocalEnded()) {
            mergeIntoFleet(h.key, local.read(h.key));
        }
        Object reply = null;
        if (!h.isKeptLocal()) {
            List<String> argList = new ArrayList<>();
            for (Object arg : args) {
                argList.add(String.valueOf(arg));
            }
            argList.add(clockArgument(callerNow));
            Function<Jedis, Object> command = jedis -> script.run(jedis, keys, argList);
            boolean[] repaired = new boolean[1];
            reply = link.call(command, null, error -> repaired[0] = refused(h, error));
            if (repaired[0]) {
                reply = link.call(command, null, error -> refused(h, error)); // once more, on the keys written anew
            }
        }
        if (reply == null) {
            h.pendingAdmitted.addAndGet(pending);
            return null;
        }
        try {
            return answer.apply(reply instanceof List ? (List<?>) reply : Collections.emptyList(),
                    options.timedByCaller ? callerNow : clock.millis());
        } catch (RuntimeException e) {
            AgentLog.failure("reading the fleet store's answer to " + script.name, e);
            return null;
        }
    }

    /**
     * Redis refused a command of {@code h}'s for its data. A key of another type in the agent's key space
     * (another writer's, or garbage) is deleted, to be written anew; anything else (out of memory, writes
     * stopped) keeps the host in this JVM for a while. True when keys were deleted.
     */
    private boolean refused(Host h, JedisDataException error) {
        if ("WRONGTYPE".equals(RedisLink.code(error)) && link.call(jedis -> deleteWrongTyped(jedis, h), 0, ignored -> { }) > 0) {
            link.refused(error, "a key of the agent's held another type; deleted, to be written anew");
            return true;
        }
        h.keptLocalUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.keptLocalMillis);
        link.refused(error, "the hosts it concerns are kept in this JVM's own knowledge meanwhile, asking Redis again every "
                + TimeUnit.MILLISECONDS.toSeconds(options.keptLocalMillis) + " s");
        return false;
    }

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

    /** The refresher's task: what fails here is said, and the next round runs as ever. */
    private void refreshSafely() {
        try {
            refresh();
        } catch (RuntimeException | LinkageError e) {
            AgentLog.failure("refreshing the fleet store's moments", e);
        }
    }

    /** One pipelined trip for every host asked about lately: what the fleet knows of it, and the successes counted meanwhile. */
    void refresh() {
        long now = clock.millis();
        List<Host> due = new ArrayList<>();
        for (Host h : hosts.values()) {
            if (now - h.lastAskedMillis <= INTEREST_MILLIS) {
                due.add(h);
            } else if (now - h.lastAskedMillis > 10 * INTEREST_MILLIS && h.pendingAdmitted.get() == 0) {
                hosts.remove(h.key, h); // forgotten here; Redis keeps it until its keys expire
            }
        }
        int[] pending;
        List<Object> replies;
        synchronized (countingTrips) {
            due.removeIf(Host::isKeptLocal); // refused lately, perhaps since this refresh began: asked again once that is over
            if (due.isEmpty() || !link.isAvailable()) {
                return;
            }
            pending = new int[due.size()];
            for (int i = 0; i < due.size(); i++) {
                pending[i] = due.get(i).pendingAdmitted.getAndSet(0);
            }
            replies = link.call(jedis -> pipelineReads(jedis, due, pending), null, null);
        }
        long after = clock.millis();
        for (int i = 0; i < due.size(); i++) {
            Host h = due.get(i);
            Object reply = replies == null ? null : replies.get(i);
            if (reply instanceof JedisDataException) {
                refused(h, (JedisDataException) reply);
            }
            if (reply == null || reply instanceof JedisDataException) {
                h.pendingAdmitted.addAndGet(pending[i]);
            } else {
                h.seen = KnowledgeEncoding.decode((List<?>) reply, after);
            }
        }
    }

    private List<Object> pipelineReads(Jedis jedis, List<Host> due, int[] pending) {
        if (!readLoaded) {
            jedis.scriptLoad(FleetScripts.READ.text);
            readLoaded = true;
        }
        Pipeline pipeline = jedis.pipelined();
        List<Response<Object>> responses = new ArrayList<>(due.size());
        for (int i = 0; i < due.size(); i++) {
            Host h = due.get(i);
            responses.add(pipeline.evalsha(FleetScripts.READ.sha, Arrays.asList(h.hash, h.streaks, h.admitted),
                    Arrays.asList(Integer.toString(pending[i]), Long.toString(bucketMillis(h.windowMillis)),
                            Long.toString(h.windowMillis), clockArgument(clock.millis()))));
        }
        pipeline.sync();
        List<Object> replies = new ArrayList<>(due.size());
        for (Response<Object> response : responses) {
            try {
                replies.add(response.get());
            } catch (JedisNoScriptException e) {
                readLoaded = false; // flushed by someone meanwhile: the next round loads it again
                return null;
            } catch (JedisDataException e) {
                if (RedisLink.isOutage(e)) {
                    throw e;
                }
                replies.add(e); // this host's refusal (out of memory, a key of another type): the others' replies stand
            }
        }
        return replies;
    }

    private String clockArgument(long callerNow) {
        return options.timedByCaller ? Long.toString(callerNow) : "";
    }

    /** A bucket is a two-hundredth of the window, at least 100 ms: fine enough for the ceiling, few enough fields. */
    static long bucketMillis(long windowMillis) {
        return Math.max(100, windowMillis / 200);
    }

    private Host state(String key) {
        Host h = hosts.get(key);
        return h != null ? h : hosts.computeIfAbsent(key, k -> new Host(k, "retry-after:{" + fleet + "}:host:" + k));
    }

    /** This JVM's dealings with one host's keys, and its lock; its knowledge is the engine's, as last seen. */
    private static final class Host {
        private static final AtomicLongFieldUpdater<Host> KEPT_LOCAL = AtomicLongFieldUpdater.newUpdater(Host.class, "keptLocalUntilNanos");
        static final AtomicReferenceFieldUpdater<Host, FleetRefusal> REFUSAL =
                AtomicReferenceFieldUpdater.newUpdater(Host.class, FleetRefusal.class, "refusal");
        final String key;
        final String hash;
        final String streaks;
        final String admitted;
        final AtomicInteger pendingAdmitted = new AtomicInteger();
        volatile long windowMillis = 60_000;
        volatile long lastAskedMillis;
        /** The fleet's knowledge as last refreshed, with what trips told since; null before the first refresh. */
        volatile HostKnowledge seen;
        /** {@link #seen} as last copied into this JVM's store. */
        volatile HostKnowledge copied;
        /** The fleet's answer to this JVM's latest refusal, for the learning that follows it. */
        volatile FleetRefusal refusal;
        /** On System.nanoTime: Redis refused a command of this host's, which stays in this JVM until then. */
        volatile long keptLocalUntilNanos;

        Host(String key, String hash) {
            this.key = key;
            this.hash = hash;
            this.streaks = hash + ":streaks";
            this.admitted = hash + ":admitted";
        }

        /** What a trip told, merged into what was seen; before the first refresh, only an answer that {@code refreshes} counts. */
        void saw(HostKnowledge told, boolean refreshes) {
            HostKnowledge before = seen;
            if (before != null || refreshes) {
                seen = before == null ? told : before.mergedWith(told);
            }
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
        Host asked(long now, long window) {
            if (now - lastAskedMillis >= ASKED_GRAIN_MILLIS) {
                lastAskedMillis = now;
            }
            if (window > 0 && window != windowMillis) {
                windowMillis = window;
            }
            return this;
        }
    }
}
