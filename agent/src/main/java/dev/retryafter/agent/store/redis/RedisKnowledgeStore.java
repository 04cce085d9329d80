package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.engine.knowledge.FinishedStreak;
import dev.retryafter.agent.engine.knowledge.HostKnowledge;
import dev.retryafter.agent.engine.knowledge.InMemoryKnowledgeStore;
import dev.retryafter.agent.engine.knowledge.KnowledgeStore;
import dev.retryafter.agent.engine.knowledge.OpenStreak;
import dev.retryafter.agent.engine.learn.PaceSchedule;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The engine's knowledge store, shared by a fleet on Redis, over this JVM's own. Every operation goes
 * to both: to the local store (what the engine reads on every request, and carries on with while
 * Redis is unavailable) and, as the same operation's change to the knowledge, to {@link RedisFleet},
 * whose answers come back into the local store. Both are merges, so running an operation twice is
 * safe. The fleet is one client of the portal: one schedule per host ({@link #reserveSlot} books on
 * Redis), one streak (only its first refusal teaches), and one ceiling (a refusal reads the successes
 * of every JVM, counted in Redis with each trip, never a trip of their own).
 */
public final class RedisKnowledgeStore implements KnowledgeStore, AutoCloseable {

    /** Which hosts are the fleet's, and each one's window: from the policies. */
    public interface HostRules {
        boolean isShared(String host);

        long windowMillis(String host);
    }

    /** Two readings of one learning, one converted through Redis: closer than this, they are the same. */
    private static final long SAME_MOMENT_MILLIS = 50;

    private final RedisFleet fleet;
    private final KnowledgeStore local;
    private final Clock clock;
    private final HostRules rules;
    /** Every {@link #read} is Redis's answer: for the store contract, far too slow for requests. */
    private final boolean readThrough;
    private final ConcurrentHashMap<String, Object> locks = new ConcurrentHashMap<>();
    /** The fleet's answer to this JVM's latest refusal per host, for the learning that follows it. */
    private final ConcurrentHashMap<String, RedisFleet.FleetRefusal> refusals = new ConcurrentHashMap<>();
    /** The fleet's knowledge as last seen ({@link RedisFleet#seen}), once copied into the local store. */
    private final ConcurrentHashMap<String, HostKnowledge> copied = new ConcurrentHashMap<>();

    public RedisKnowledgeStore(RedisFleet fleet, Clock clock, HostRules rules) {
        this(fleet, new InMemoryKnowledgeStore(), clock, rules, false);
    }

    /** With {@code local} as this JVM's copy: a state file's store, say, so that what this JVM knew outlives it. */
    public RedisKnowledgeStore(RedisFleet fleet, KnowledgeStore local, Clock clock, HostRules rules) {
        this(fleet, local, clock, rules, false);
    }

    private RedisKnowledgeStore(RedisFleet fleet, KnowledgeStore local, Clock clock, HostRules rules, boolean readThrough) {
        this.fleet = fleet;
        this.local = local;
        this.clock = clock;
        this.rules = rules;
        this.readThrough = readThrough;
        fleet.onRestored(this::mergeBack);
        fleet.onHostRestored(host -> fleet.merge(host, local.read(host)));
    }

    public static RedisKnowledgeStore readingThrough(RedisFleet fleet, Clock clock, HostRules rules) {
        return new RedisKnowledgeStore(fleet, new InMemoryKnowledgeStore(), clock, rules, true);
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
        HostKnowledge fleets = rules.isShared(host) ? fleet.read(host) : null;
        return fleets != null ? fleets : local.read(host);
    }

    @Override
    public long reserveSlot(String host, long now, long intervalMillis, long maxWaitMillis) {
        if (!rules.isShared(host) || !fleet.isAvailable()) {
            return local.reserveSlot(host, now, intervalMillis, maxWaitMillis);
        }
        HostKnowledge seen = fleet.seen(host);
        // Never refreshed yet (this JVM's first requests): only Redis can say whether the fleet holds the host.
        if (!readThrough && intervalMillis <= 0 && seen != null && !seen.pace().isPresent() && seen.owesNothingAt(now)
                && seen.nextSlot().orElse(now) <= now && local.read(host).owesNothingAt(now)) {
            return 0; // no pace, no wait, no hold, here or in the fleet as last refreshed: no round trip
        }
        OptionalLong wait = fleet.reserve(host, now, intervalMillis, maxWaitMillis, rules.windowMillis(host));
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
        synchronized (lockOf(host)) {
            RedisFleet.FleetRefusal refusal = fleet.refusal(host, now, rules.windowMillis(host), sentAt, headerMillis, whilePaced);
            if (refusal == null) {
                refusals.remove(host);
                return local.recordRefusal(host, now, sentAt, headerMillis, whilePaced);
            }
            refusals.put(host, refusal);
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
            fleet.admitted(host, rules.windowMillis(host));
        }
    }

    /** The fleet's ceiling, as Redis counted it at this JVM's refusal; this JVM's own only when Redis did not answer. */
    @Override
    public int ceilingBefore(String host, long refusalAt, long windowMillis) {
        RedisFleet.FleetRefusal seen = refusalAt(host, refusalAt);
        return seen != null ? seen.ceiling : local.ceilingBefore(host, refusalAt, windowMillis);
    }

    @Override
    public long ceilingSpanMillis(String host, long refusalAt, long windowMillis) {
        return refusalAt(host, refusalAt) != null ? Math.min(windowMillis, rules.windowMillis(host)) : windowMillis;
    }

    @Override
    public Optional<StreakEnd> recordRecovery(String host, long sentAt) {
        if (!rules.isShared(host) || !mayEndStreak(host, local.read(host))) {
            // The happy path: no streak open anywhere we know of. Not under the host's lock, which every
            // success would otherwise take; a refusal recorded just after is as if it came after this success.
            return local.recordRecovery(host, sentAt);
        }
        synchronized (lockOf(host)) {
            long now = clock.millis();
            HostKnowledge before = local.read(host);
            if (!mayEndStreak(host, before) || !fleet.isAvailable()) {
                return local.recordRecovery(host, sentAt);
            }
            Optional<FinishedStreak> ended = fleet.recovery(host, now, sentAt);
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
        RedisFleet.FleetRefusal seen = refusalAt(host, learnedAt);
        if (seen != null && ceiling.isPresent()) {
            refusals.remove(host, seen);
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
            fleet.merge(host, known);
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
        refusals.remove(host);
        copied.remove(host);
    }

    @Override
    public void close() {
        fleet.close();
    }

    /** Redis is back (perhaps restarted empty): what this JVM learned meanwhile goes to the fleet. */
    void mergeBack() {
        for (Map.Entry<String, HostKnowledge> entry : local.snapshot().entrySet()) {
            if (rules.isShared(entry.getKey())) {
                fleet.merge(entry.getKey(), entry.getValue());
            }
        }
    }

    /** {@code operation} on this JVM's copy and, for a shared host, run on nothing to make its change, merged into the fleet's. */
    private void everywhere(String host, Consumer<KnowledgeStore> operation) {
        operation.accept(local);
        if (rules.isShared(host)) {
            InMemoryKnowledgeStore change = new InMemoryKnowledgeStore();
            operation.accept(change);
            fleet.merge(host, change.read(host));
        }
    }

    /** The fleet's not-before, hold and learning as last seen, into this JVM's copy once per refresh; streaks come with answers. */
    private void copySeen(String host) {
        HostKnowledge seen = fleet.seen(host);
        if (seen == null || copied.get(host) == seen) {
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
        copied.put(host, seen);
    }

    /** Whether a success may end a streak: this JVM's, or the fleet's as last seen, is open. */
    private boolean mayEndStreak(String host, HostKnowledge mine) {
        if (readThrough || mine.openStreak().isPresent()) {
            return true;
        }
        HostKnowledge seen = fleet.seen(host);
        return seen != null && seen.openStreak().isPresent();
    }

    /** The fleet's answer to this JVM's refusal at {@code moment}, if that is the latest it saw of {@code host}. */
    private RedisFleet.FleetRefusal refusalAt(String host, long moment) {
        RedisFleet.FleetRefusal seen = rules.isShared(host) ? refusals.get(host) : null;
        return seen != null && seen.at == moment ? seen : null;
    }

    private Object lockOf(String host) {
        Object lock = locks.get(host);
        return lock != null ? lock : locks.computeIfAbsent(host, h -> new Object());
    }
}
