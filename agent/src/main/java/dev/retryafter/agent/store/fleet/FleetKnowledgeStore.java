package dev.retryafter.agent.store.fleet;

import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.engine.DaemonThreads;
import dev.retryafter.agent.engine.knowledge.FinishedStreak;
import dev.retryafter.agent.engine.knowledge.HostKnowledge;
import dev.retryafter.agent.engine.knowledge.InMemoryKnowledgeStore;
import dev.retryafter.agent.engine.knowledge.KnowledgeStore;
import dev.retryafter.agent.engine.knowledge.OpenStreak;
import dev.retryafter.agent.engine.learn.PaceSchedule;
import dev.retryafter.agent.log.AgentLog;

import java.util.ArrayList;
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
import java.util.function.Consumer;

/**
 * The engine's knowledge store, shared by a fleet, over this JVM's own. Every operation goes to both:
 * to the local store (what the engine reads on every request, and carries on with while the shared
 * side is unavailable) and, as the same operation's change to the knowledge, to the
 * {@link SharedKnowledge}, whose answers come back into the local store. Both are merges, so running
 * an operation twice is safe. The fleet is one client of the portal: one schedule per host
 * ({@link #reserveSlot} books on the shared side), one streak (only its first refusal teaches), and
 * one ceiling (a refusal reads the successes of every JVM, counted with each trip, never a trip of
 * their own). {@link #seen} answers without a round trip from what a background thread reads every
 * {@code refreshMillis}, a trip that also carries the successes counted meanwhile.
 */
public class FleetKnowledgeStore<K> implements KnowledgeStore, AutoCloseable {

    /** Which hosts are the fleet's, and each one's window: from the policies. */
    public interface HostRules {
        boolean isShared(String host);

        long windowMillis(String host);
    }

    /** A host not asked about for this long is no longer refreshed. */
    static final long INTEREST_MILLIS = 60_000;
    public static final long EARLY_FLUSH_MILLIS = 25;
    /** Two readings of one learning, one converted through the shared side: closer than this, they are the same. */
    private static final long SAME_MOMENT_MILLIS = 50;

    private final SharedKnowledge<K> shared;
    private final KnowledgeStore local;
    private final Clock clock;
    private final HostRules rules;
    private final long refreshMillis;
    private final boolean countsAtOnce;
    private final boolean readThrough;
    private final ConcurrentHashMap<String, FleetHost<K>> hosts = new ConcurrentHashMap<>();
    private final ScheduledExecutorService refresher;
    /** A trip asked of the refresher and not yet made: successes counted meanwhile go with it. */
    private final AtomicBoolean flushQueued = new AtomicBoolean();
    private volatile long lastEarlyFlushNanos = System.nanoTime() - TimeUnit.SECONDS.toNanos(1);
    /** Held while a trip carries this JVM's counted successes: a refusal's ceiling waits for a refresh that took the count. */
    private final Object countingTrips = new Object();

    /**
     * Over {@code local}, this JVM's copy (a state file's store, say, so that what this JVM knew outlives it).
     * {@code countsAtOnce}: a success on a host of a short window asks for a trip soon ({@link #admitted});
     * {@code readThrough}, for the store contract only: every {@link #read} is the shared side's answer.
     */
    protected FleetKnowledgeStore(SharedKnowledge<K> shared, KnowledgeStore local, Clock clock, HostRules rules, long refreshMillis,
                                  boolean countsAtOnce, boolean readThrough) {
        this.shared = shared;
        this.local = local;
        this.clock = Objects.requireNonNull(clock);
        this.rules = rules;
        this.refreshMillis = refreshMillis;
        this.countsAtOnce = countsAtOnce;
        this.readThrough = readThrough;
        shared.onRestored(this::mergeBack);
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, new DaemonThreads("retry-after-agent-fleet-refresh"));
        executor.scheduleWithFixedDelay(this::refreshSafely, refreshMillis, refreshMillis, TimeUnit.MILLISECONDS);
        this.refresher = executor;
    }

    @Override
    public HostKnowledge read(String host) {
        if (readThrough) {
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
        if (!rules.isShared(host) || !shared.isAvailable()) {
            return local.reserveSlot(host, now, intervalMillis, maxWaitMillis);
        }
        HostKnowledge seen = seen(host);
        // Never refreshed yet (this JVM's first requests): only the fleet can say whether it holds the host.
        if (!readThrough && intervalMillis <= 0 && seen != null && !seen.pace().isPresent() && seen.owesNothingAt(now)
                && seen.nextSlot().orElse(now) <= now && local.read(host).owesNothingAt(now)) {
            return 0; // no pace, no wait, no hold, here or in the fleet as last refreshed: no round trip
        }
        OptionalLong wait = reserve(host, now, intervalMillis, maxWaitMillis, rules.windowMillis(host));
        long mine = local.reserveSlot(host, now, intervalMillis, maxWaitMillis); // this JVM's schedule, should the fleet's go
        if (!wait.isPresent()) {
            return mine;
        }
        // This JVM's own not-before stands even when the fleet answers without it (a refusal's wait that never
        // reached it is still this JVM's floor); its schedule does not: the fleet's booking spaces every JVM's.
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
        FleetHost<K> h = state(host);
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
                local.merge(host, streaks(Optional.of(streak), Collections.<FinishedStreak>emptyList()));
            }
            distrustRetryAfter(host, refusal.retryAfterDistrusted);
            return streak;
        }
    }

    /** Counted here and, with the next trip, into the fleet's count: no round trip of its own. */
    @Override
    public void recordAdmitted(String host, long now) {
        local.recordAdmitted(host, now);
        if (rules.isShared(host)) {
            admitted(host, rules.windowMillis(host));
        }
    }

    /** The fleet's ceiling, as it counted it at this JVM's refusal; this JVM's own only when the fleet did not answer. */
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
            if (!mayEndStreak(host, before) || !shared.isAvailable()) {
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
            local.merge(host, streaks(Optional.<OpenStreak>empty(), Collections.singletonList(ended.get())));
            return Optional.of(new StreakEnd(ended.get(), before, local.read(host)));
        }
    }

    /** What a refusal taught, at the fleet's ceiling; only the fleet streak's first refusal teaches. */
    @Override
    public void learn(String host, long learnedAt, Optional<PaceSchedule> pace, OptionalInt ceiling) {
        FleetRefusal seen = refusalAt(host, learnedAt);
        if (seen != null && ceiling.isPresent()) {
            FleetHost.REFUSAL.compareAndSet(state(host), seen, null);
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
        if (!readThrough) {
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
        FleetHost<K> h = hosts.get(host);
        if (h != null) {
            h.refusal = null;
            h.copied = null;
        }
    }

    @Override
    public void close() {
        refresher.shutdownNow();
        shared.close();
    }

    // ---- the fleet's operations, each null (or empty) when the shared side is unavailable

    /** The wait for the fleet's next slot. */
    public OptionalLong reserve(String host, long now, long intervalMillis, long maxWaitMillis, long windowMillis) {
        FleetHost<K> h = state(host).asked(clock.millis(), windowMillis);
        int pending = h.pendingAdmitted.getAndSet(0);
        Long wait = reachable(h) ? shared.reserve(h, now, intervalMillis, maxWaitMillis, pending, windowMillis) : null;
        if (wait == null) {
            h.pendingAdmitted.addAndGet(pending);
            return OptionalLong.empty();
        }
        return OptionalLong.of(wait);
    }

    /** {@code known} merged into the fleet's, as {@link HostKnowledge#mergedWith} merges. False when unavailable. */
    public boolean mergeIntoFleet(String host, HostKnowledge known) {
        if (known.equals(HostKnowledge.NONE)) {
            return true;
        }
        FleetHost<K> h = state(host);
        return reachable(h) && shared.merge(h, known, clock.millis());
    }

    /** A refusal at {@code now} of a request sent at {@code sentAt}, counted into the fleet's streak. */
    public FleetRefusal refusal(String host, long now, long windowMillis, long sentAt, OptionalLong headerMillis, boolean whilePaced) {
        FleetHost<K> h = state(host).asked(clock.millis(), windowMillis);
        synchronized (countingTrips) { // after any refresh that took this JVM's count: the ceiling must include it
            int pending = h.pendingAdmitted.getAndSet(0);
            FleetRefusal refusal = reachable(h) ? shared.refusal(h, now, windowMillis, sentAt, headerMillis, whilePaced, pending) : null;
            if (refusal == null) {
                h.pendingAdmitted.addAndGet(pending);
            } else {
                h.saw(streaks(Optional.of(refusal.streak), Collections.<FinishedStreak>emptyList()), false);
            }
            return refusal;
        }
    }

    /** The fleet's streak that a success to a request sent at {@code sentAt} ended, if any. */
    public Optional<FinishedStreak> recovery(String host, long now, long sentAt) {
        FleetHost<K> h = state(host);
        Optional<FinishedStreak> ended = reachable(h) ? shared.recovery(h, now, sentAt) : null;
        HostKnowledge seen = h.seen;
        if (ended != null && ended.isPresent() && seen != null) {
            h.seen = HostKnowledge.of(seen.notBefore(), seen.nextSlot(), seen.holdUntil(), seen.holdReason(), seen.pace(),
                    seen.paceLearnedAt(), seen.learnedCeiling(), Optional.<OpenStreak>empty(), seen.finishedStreaks(),
                    seen.costsSince(), seen.hintsDistrusted(), seen.retryAfterDistrusted());
        }
        return ended;
    }

    /** Everything the fleet knows of {@code host}, on this JVM's clock. */
    public HostKnowledge readFleet(String host) {
        FleetHost<K> h = state(host);
        return reachable(h) ? shared.read(h, 0) : null;
    }

    /**
     * What the fleet knew of {@code host} at the last refresh, with what this JVM's trips have told of it
     * since, without a round trip; asking keeps it refreshed. Null before it was first refreshed.
     */
    public HostKnowledge seen(String host) {
        return state(host).asked(clock.millis(), 0).seen;
    }

    /**
     * A success from {@code host}: counted here, carried to the fleet with the next trip. On a host of a
     * short window, the first success since the last trip also asks the refresher for one soon: an
     * unpaced host makes no trip of its own, and a fleet's first burst is over within a refresh
     * interval, so another JVM's refusal would otherwise read a ceiling short of this JVM's successes
     * (16 of a portal's 20 in 2 s, three JVMs on loopback).
     */
    public void admitted(String host, long windowMillis) {
        FleetHost<K> h = state(host).asked(clock.millis(), windowMillis);
        if (h.pendingAdmitted.getAndIncrement() != 0 || !countsAtOnce) {
            return;
        }
        long soonest = earlyFlushMillis(windowMillis);
        if (soonest < refreshMillis && flushQueued.compareAndSet(false, true)) {
            // At most one such trip every soonest ms: a busy happy host costs the fleet a few dozen a second, not one per success.
            long delay = Math.max(0, soonest - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastEarlyFlushNanos));
            if (!schedule(refresher, () -> {
                lastEarlyFlushNanos = System.nanoTime();
                flushQueued.set(false);
                refreshSafely();
            }, delay)) {
                flushQueued.set(false);
            }
        }
    }

    /**
     * How soon successes counted here must reach the fleet for another JVM's refusal to read the fleet's
     * ceiling to within about 1% of the window. On the default window of a minute the refresh is soon
     * enough: with trips of their own, 40 a second, the store's thread took 2% of a busy client's
     * processor time on loopback.
     */
    public static long earlyFlushMillis(long windowMillis) {
        return Math.max(EARLY_FLUSH_MILLIS, windowMillis / 80);
    }

    /** One trip for every host asked about lately: what the fleet knows of it, and the successes counted meanwhile. */
    public void refresh() {
        long now = clock.millis();
        List<FleetHost<K>> due = new ArrayList<>();
        for (FleetHost<K> h : hosts.values()) {
            if (now - h.lastAskedMillis <= INTEREST_MILLIS) {
                due.add(h);
            } else if (now - h.lastAskedMillis > 10 * INTEREST_MILLIS && h.pendingAdmitted.get() == 0) {
                hosts.remove(h.key, h); // forgotten here; the fleet keeps it until its keys expire
            }
        }
        int[] pending;
        List<HostKnowledge> answers;
        synchronized (countingTrips) {
            due.removeIf(FleetHost::isKeptLocal); // refused lately, perhaps since this refresh began: asked again once that is over
            if (due.isEmpty() || !shared.isAvailable()) {
                return;
            }
            pending = new int[due.size()];
            for (int i = 0; i < due.size(); i++) {
                pending[i] = due.get(i).pendingAdmitted.getAndSet(0);
            }
            answers = shared.readAll(due, pending);
        }
        for (int i = 0; i < due.size(); i++) {
            FleetHost<K> h = due.get(i);
            HostKnowledge answer = answers == null ? null : answers.get(i);
            if (answer == null) {
                h.pendingAdmitted.addAndGet(pending[i]);
            } else {
                h.seen = answer;
            }
        }
    }

    /** False when {@code executor} is shut down: nothing left to run. */
    public static boolean schedule(ScheduledExecutorService executor, Runnable task, long delayMillis) {
        try {
            executor.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** The shared side is back (perhaps restarted empty): what this JVM learned meanwhile goes to the fleet. */
    private void mergeBack() {
        for (Map.Entry<String, HostKnowledge> entry : local.snapshot().entrySet()) {
            if (rules.isShared(entry.getKey())) {
                mergeIntoFleet(entry.getKey(), entry.getValue());
            }
        }
    }

    /**
     * Whether {@code h} may go to the shared side now: not while it refuses the host's commands; once that
     * is over, what this JVM learned meanwhile goes first, as after an outage.
     */
    private boolean reachable(FleetHost<K> h) {
        if (h.keepingLocalEnded()) {
            mergeIntoFleet(h.key, local.read(h.key));
        }
        return !h.isKeptLocal();
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
        FleetHost<K> h = state(host).asked(clock.millis(), 0);
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
        distrustRetryAfter(host, seen.retryAfterDistrusted().orElse(""));
        long learnedAt = seen.paceLearnedAt().orElse(Long.MIN_VALUE);
        if (seen.paceLearnedAt().isPresent() && learnedAt > known.paceLearnedAt().orElse(Long.MIN_VALUE) + SAME_MOMENT_MILLIS) {
            local.learn(host, learnedAt, seen.pace(), seen.learnedCeiling());
        }
        h.copied = seen;
    }

    /** The fleet's verdict against the host's {@code Retry-After}, whichever JVM's refusals found it, is this JVM's too. */
    private void distrustRetryAfter(String host, String why) {
        if (!why.isEmpty() && !local.read(host).retryAfterDistrusted().isPresent()) {
            local.merge(host, HostKnowledge.of(OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), Optional.<String>empty(),
                    Optional.<PaceSchedule>empty(), OptionalLong.empty(), OptionalInt.empty(), Optional.<OpenStreak>empty(),
                    Collections.<FinishedStreak>emptyList(), OptionalLong.empty(), Optional.<String>empty(), Optional.of(why)));
        }
    }

    /** Whether a success may end a streak: this JVM's, or the fleet's as last seen, is open. */
    private boolean mayEndStreak(String host, HostKnowledge mine) {
        if (readThrough || mine.openStreak().isPresent()) {
            return true;
        }
        HostKnowledge seen = seen(host);
        return seen != null && seen.openStreak().isPresent();
    }

    /** The fleet's answer to this JVM's refusal at {@code moment}, if that is the latest it saw of {@code host}. */
    private FleetRefusal refusalAt(String host, long moment) {
        FleetHost<K> h = rules.isShared(host) ? hosts.get(host) : null;
        FleetRefusal seen = h != null ? h.refusal : null;
        return seen != null && seen.at == moment ? seen : null;
    }

    /** Knowledge of a streak alone: the open one, or finished ones (newest first). */
    public static HostKnowledge streaks(Optional<OpenStreak> open, List<FinishedStreak> finished) {
        return HostKnowledge.of(OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), Optional.<String>empty(),
                Optional.<PaceSchedule>empty(), OptionalLong.empty(), OptionalInt.empty(), open, finished, OptionalLong.empty());
    }

    /** The refresher's task: what fails here is said, and the next round runs as ever. */
    private void refreshSafely() {
        try {
            refresh();
        } catch (RuntimeException | LinkageError e) {
            AgentLog.failure("refreshing the fleet store's moments", e);
        }
    }

    private FleetHost<K> state(String key) {
        FleetHost<K> h = hosts.get(key);
        return h != null ? h : hosts.computeIfAbsent(key, k -> new FleetHost<>(k, shared.keys(k)));
    }
}
