package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.engine.FinishedStreak;
import dev.retryafter.agent.engine.HostKnowledge;
import dev.retryafter.agent.engine.InMemoryKnowledgeStore;
import dev.retryafter.agent.engine.KnowledgeStore;
import dev.retryafter.agent.engine.OpenStreak;
import dev.retryafter.agent.engine.PaceSchedule;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The engine's knowledge store, shared by a fleet on Redis, with this JVM's own knowledge beside
 * it. Every operation goes to both: to an in-memory store (what the engine reads on every request,
 * and what it carries on with while Redis is unavailable), and to {@link RedisHostKnowledge}, whose
 * answers are merged back into it (the fleet's not-before, hold, pace and open streak). The
 * operations' semantics make both safe to run twice: later moments win, streaks append once.
 *
 * <p>What makes the fleet one client of the portal:
 * <ul>
 *   <li>one schedule per host: {@link #reserveSlot} books on Redis, so every JVM's requests are
 *       spaced by the pace together, served in the order they ask;</li>
 *   <li>one streak: a refusal any JVM sees opens the fleet's streak or counts into it, and only the
 *       streak's first refusal teaches;</li>
 *   <li>the fleet's ceiling: every JVM's successes are counted in Redis (carried with the next
 *       trip, never a trip of their own), and a refusal reads the ceiling the whole fleet reached
 *       since the window began or the previous refusal, not this JVM's share of it.</li>
 * </ul>
 * Moments in the engine's terms are epoch milliseconds on its clock; the Redis side works in
 * durations timed by Redis, so the conversion is made here, with the engine's clock.
 */
public final class RedisKnowledgeStore implements KnowledgeStore, AutoCloseable {

    /** Which hosts are the fleet's, and each one's window: from the policies. */
    public interface HostRules {
        boolean isShared(String host);

        long windowMillis(String host);
    }

    /** Two readings of one learning, one converted through Redis: closer than this, they are the same. */
    private static final long SAME_MOMENT_MILLIS = 50;

    private final RedisHostKnowledge fleet;
    private final KnowledgeStore local;
    private final Clock clock;
    private final HostRules rules;
    private final boolean readThrough;
    private final ConcurrentHashMap<String, Object> locks = new ConcurrentHashMap<>();
    /** The fleet's answer to this JVM's latest refusal per host, for the learning that follows it. */
    private final ConcurrentHashMap<String, RefusalSeen> refusals = new ConcurrentHashMap<>();
    /**
     * The fleet's moments last copied into this JVM's knowledge, per host: a copy is made once per
     * refresh, not at every read (several a request). The same moments copied again would change nothing.
     */
    private final ConcurrentHashMap<String, RedisHostKnowledge.Moments> mirrored = new ConcurrentHashMap<>();

    public RedisKnowledgeStore(RedisHostKnowledge fleet, Clock clock, HostRules rules) {
        this(fleet, new InMemoryKnowledgeStore(), clock, rules, false);
    }

    /**
     * With {@code local} as this JVM's copy: a state file's store, say, so that what this JVM knew
     * (of the fleet's hosts and of its own) outlives it, even while Redis is gone.
     */
    public RedisKnowledgeStore(RedisHostKnowledge fleet, KnowledgeStore local, Clock clock, HostRules rules) {
        this(fleet, local, clock, rules, false);
    }

    /**
     * {@code readThrough}: every {@link #read} is rebuilt from Redis, never from this JVM's copy. For
     * the store contract, which must see what Redis keeps; far too slow for the request path.
     */
    RedisKnowledgeStore(RedisHostKnowledge fleet, KnowledgeStore local, Clock clock, HostRules rules, boolean readThrough) {
        this.fleet = fleet;
        this.local = local;
        this.clock = clock;
        this.rules = rules;
        this.readThrough = readThrough;
        fleet.onRestored(this::mergeBack);
        fleet.onHostRestored(host -> push(host, local.read(host), clock.millis()));
    }

    /** For the store contract: see {@link #RedisKnowledgeStore(RedisHostKnowledge, KnowledgeStore, Clock, HostRules, boolean)}. */
    public static RedisKnowledgeStore readingThrough(RedisHostKnowledge fleet, Clock clock, HostRules rules) {
        return new RedisKnowledgeStore(fleet, new InMemoryKnowledgeStore(), clock, rules, true);
    }

    @Override
    public HostKnowledge read(String host) {
        if (!rules.isShared(host)) {
            return local.read(host);
        }
        if (readThrough) {
            Optional<RedisHostKnowledge.Raw> raw = fleet.readRaw(host);
            return raw.isPresent() ? rebuild(host, raw.get(), clock.millis()) : local.read(host);
        }
        mirrorCached(host);
        return local.read(host);
    }

    @Override
    public HostKnowledge readThrough(String host) {
        if (!rules.isShared(host)) {
            return local.read(host);
        }
        Optional<RedisHostKnowledge.Raw> raw = fleet.readRaw(host);
        return raw.isPresent() ? rebuild(host, raw.get(), clock.millis()) : local.read(host);
    }

    @Override
    public long reserveSlot(String host, long now, long intervalMillis, long maxWaitMillis) {
        if (!rules.isShared(host) || !fleet.isAvailable()) {
            return local.reserveSlot(host, now, intervalMillis, maxWaitMillis);
        }
        RedisHostKnowledge.Moments cached = fleet.cached(host);
        // Never refreshed yet (this JVM's first requests): only Redis can say whether the fleet holds the host.
        if (!readThrough && intervalMillis <= 0 && cached.refreshedAtMillis() != 0 && cached.isQuietAt(now)
                && local.read(host).owesNothingAt(now)) {
            return 0; // no pace, no wait, no hold, here or in the fleet as last refreshed: no round trip
        }
        OptionalLong wait = fleet.reserve(host, now, intervalMillis, maxWaitMillis, rules.windowMillis(host));
        long mine = local.reserveSlot(host, now, intervalMillis, maxWaitMillis); // this JVM's schedule, should Redis go
        if (!wait.isPresent()) {
            return mine;
        }
        // This JVM's own not-before stands even when Redis answers without it: a refusal's wait that
        // never reached Redis (it was away, or lost the key) is still the floor for this JVM's requests.
        // Its schedule does not: the fleet's booking already spaces them, among every JVM's.
        long floor = local.read(host).notBefore().orElse(now) - now;
        return Math.max(wait.getAsLong(), Math.min(floor, maxWaitMillis));
    }

    @Override
    public void imposeNotBefore(String host, long moment) {
        local.imposeNotBefore(host, moment);
        if (rules.isShared(host)) {
            fleet.imposeNotBefore(host, moment - clock.millis());
        }
    }

    @Override
    public void holdUntil(String host, long moment, String reason) {
        local.holdUntil(host, moment, reason);
        if (rules.isShared(host)) {
            fleet.holdFor(host, moment - clock.millis(), reason);
        }
    }

    @Override
    public OpenStreak recordRefusal(String host, long now, long sentAt, OptionalLong headerMillis, boolean whilePaced) {
        if (!rules.isShared(host)) {
            return local.recordRefusal(host, now, sentAt, headerMillis, whilePaced);
        }
        synchronized (lockOf(host)) {
            Optional<RedisHostKnowledge.FleetRefusal> answer = fleet.onRefusal(host, now, rules.windowMillis(host), now - sentAt,
                    headerMillis, whilePaced);
            if (!answer.isPresent()) {
                refusals.remove(host);
                return local.recordRefusal(host, now, sentAt, headerMillis, whilePaced);
            }
            RedisHostKnowledge.FleetRefusal refusal = answer.get();
            refusals.put(host, new RefusalSeen(now, refusal));
            // The fleet's streak, as the engine's value: replayed into a scratch store.
            InMemoryKnowledgeStore scratch = new InMemoryKnowledgeStore();
            long start = now - refusal.streakAgeMillis();
            long lastSent = now - refusal.lastRefusedSentAgoMillis();
            OpenStreak streak = scratch.recordRefusal(host, start, lastSent, refusal.streakHeaderMillis(), refusal.streakWhilePaced());
            for (int i = 1; i < refusal.streakRefusals(); i++) {
                streak = scratch.recordRefusal(host, start, lastSent, OptionalLong.empty(), false);
            }
            // This JVM's copy follows it: the same streak is counted up to the fleet's count (every
            // JVM's refusals set the backoff's exponent); another, older one gives way to it.
            Optional<OpenStreak> mine = local.read(host).openStreak();
            if (mine.isPresent() && mine.get().startedAtMillis() == start) {
                for (int i = mine.get().refusals(); i < refusal.streakRefusals(); i++) {
                    local.recordRefusal(host, now, lastSent, OptionalLong.empty(), false);
                }
            } else {
                local.merge(host, scratch.read(host));
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

    /**
     * The fleet's ceiling, as Redis counted it at this JVM's refusal: every JVM's successes, this
     * one's carried with the refusal. This JVM's own count only when Redis did not answer it.
     */
    @Override
    public int ceilingBefore(String host, long refusalAt, long windowMillis) {
        RefusalSeen seen = rules.isShared(host) ? refusals.get(host) : null;
        return seen != null && seen.at == refusalAt ? seen.refusal.ceiling() : local.ceilingBefore(host, refusalAt, windowMillis);
    }

    @Override
    public long ceilingSpanMillis(String host, long refusalAt, long windowMillis) {
        RefusalSeen seen = rules.isShared(host) ? refusals.get(host) : null;
        return seen != null && seen.at == refusalAt ? Math.min(windowMillis, rules.windowMillis(host)) : windowMillis;
    }

    @Override
    public Optional<StreakEnd> recordRecovery(String host, long sentAt) {
        if (!rules.isShared(host)) {
            return local.recordRecovery(host, sentAt);
        }
        if (!readThrough && !local.read(host).openStreak().isPresent() && !fleet.cached(host).isStreakOpen()) {
            // The happy path: no streak open anywhere we know of. Not under the host's lock, which every
            // success would otherwise take; a refusal recorded just after is as if it came after this success.
            return local.recordRecovery(host, sentAt);
        }
        synchronized (lockOf(host)) {
            long now = clock.millis();
            HostKnowledge before = local.read(host);
            boolean mayEnd = readThrough || before.openStreak().isPresent() || fleet.cached(host).isStreakOpen();
            if (!mayEnd || !fleet.isAvailable()) {
                return local.recordRecovery(host, sentAt);
            }
            Optional<RedisHostKnowledge.Recovery> answer = fleet.endStreak(host, now, now - sentAt);
            Optional<StreakEnd> mine = local.recordRecovery(host, sentAt);
            if (!answer.isPresent() || !answer.get().streakEnded()) {
                // Unavailable: this JVM's streak is what there is. Over already: another JVM ended it, and
                // this JVM's copy of it ends too, but the ending is that JVM's to report.
                return answer.isPresent() ? Optional.<StreakEnd>empty() : mine;
            }
            if (mine.isPresent()) {
                return mine;
            }
            // This JVM saw none of the streak: it learns of its end from the fleet.
            StreakRecord ended = answer.get().streak();
            FinishedStreak finished = finished(ended, now - ended.ageMillis());
            InMemoryKnowledgeStore scratch = new InMemoryKnowledgeStore();
            replayFinished(scratch, host, finished);
            local.merge(host, scratch.read(host));
            return Optional.of(new StreakEnd(finished, before, local.read(host)));
        }
    }

    /**
     * What a refusal taught, at the fleet's ceiling ({@link #ceilingBefore}). Only the fleet streak's
     * first refusal teaches: a refusal that merely counted into another JVM's streak teaches nothing.
     */
    @Override
    public void learn(String host, long learnedAt, Optional<PaceSchedule> pace, OptionalInt ceiling) {
        RefusalSeen seen = rules.isShared(host) ? refusals.get(host) : null;
        if (seen != null && seen.at == learnedAt && ceiling.isPresent()) {
            refusals.remove(host, seen);
            if (!seen.refusal.isFirstOfStreak()) {
                return;
            }
        }
        local.learn(host, learnedAt, pace, ceiling);
        if (rules.isShared(host)) {
            long now = clock.millis();
            PaceSchedule p = pace.orElse(null);
            fleet.recordLearned(host, now - learnedAt, ceiling, p == null ? 0 : p.refusedRatePerSecond(),
                    p == null ? 0 : p.cycleMillis(), p == null ? 0 : now - p.epochMillis());
        }
    }

    @Override
    public void forgetCostsBefore(String host, long moment) {
        local.forgetCostsBefore(host, moment);
        if (rules.isShared(host)) {
            fleet.forgetCostsBefore(host, clock.millis() - moment);
        }
    }

    @Override
    public void distrustHints(String host, String why) {
        local.distrustHints(host, why);
        if (rules.isShared(host)) {
            fleet.distrustHints(host, why);
        }
    }

    @Override
    public void merge(String host, HostKnowledge known) {
        local.merge(host, known);
        if (rules.isShared(host)) {
            push(host, known, clock.millis());
        }
    }

    @Override
    public Map<String, HostKnowledge> snapshot() {
        Map<String, HostKnowledge> mine = local.snapshot();
        if (!readThrough) {
            return mine;
        }
        Map<String, HostKnowledge> read = new java.util.HashMap<>();
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
        mirrored.remove(host);
    }

    @Override
    public void close() {
        fleet.close();
    }

    /** Redis is back (perhaps restarted empty): what this JVM learned meanwhile goes to the fleet. */
    void mergeBack() {
        long now = clock.millis();
        for (Map.Entry<String, HostKnowledge> entry : local.snapshot().entrySet()) {
            if (rules.isShared(entry.getKey())) {
                push(entry.getKey(), entry.getValue(), now);
            }
        }
    }

    private void push(String host, HostKnowledge known, long now) {
        if (known.notBefore().isPresent() && known.notBefore().getAsLong() > now) {
            fleet.imposeNotBefore(host, known.notBefore().getAsLong() - now);
        }
        if (known.holdUntil().isPresent() && known.isHeldAt(now)) {
            fleet.holdFor(host, known.holdUntil().getAsLong() - now, known.holdReason().orElse(""));
        }
        if (known.nextSlot().isPresent() && known.nextSlot().getAsLong() > now) {
            fleet.bookNextSlotAtLeast(host, known.nextSlot().getAsLong() - now);
        }
        if (known.paceLearnedAt().isPresent()) {
            PaceSchedule p = known.pace().orElse(null);
            fleet.recordLearned(host, now - known.paceLearnedAt().getAsLong(), known.learnedCeiling(),
                    p == null ? 0 : p.refusedRatePerSecond(), p == null ? 0 : p.cycleMillis(), p == null ? 0 : now - p.epochMillis());
        }
        if (known.costsSince().isPresent()) {
            fleet.forgetCostsBefore(host, now - known.costsSince().getAsLong());
        }
        if (known.hintsDistrusted().isPresent()) {
            fleet.distrustHints(host, known.hintsDistrusted().get());
        }
        if (known.openStreak().isPresent()) {
            OpenStreak open = known.openStreak().get();
            fleet.mergeOpenStreak(host, now - open.startedAtMillis(), open.headerMillis(), now - open.lastRefusedSentMillis(),
                    open.refusals(), open.whilePaced());
        }
        List<FinishedStreak> oldestFirst = new ArrayList<>(known.finishedStreaks());
        Collections.reverse(oldestFirst);
        for (FinishedStreak s : oldestFirst) {
            long age = now - s.startedAtMillis();
            fleet.recordStreak(host, s.headerMillis().isPresent()
                    ? StreakRecord.withHeader(s.headerMillis().getAsLong(), s.lastRefusedAfterMillis(), s.recoveredByMillis(), s.whilePaced(), age)
                    : StreakRecord.withoutHeader(s.lastRefusedAfterMillis(), s.recoveredByMillis(), s.whilePaced(), age));
        }
    }

    /** The fleet's moments and pace, as last refreshed, into this JVM's copy: no round trip. */
    private void mirrorCached(String host) {
        RedisHostKnowledge.Moments moments = fleet.cached(host);
        if (moments.refreshedAtMillis() == 0 || mirrored.get(host) == moments) {
            return; // never refreshed, or copied already: nothing to mirror
        }
        long now = clock.millis();
        HostKnowledge known = local.read(host);
        if (moments.notBeforeMillis() > now && moments.notBeforeMillis() > known.notBefore().orElse(Long.MIN_VALUE) + SAME_MOMENT_MILLIS) {
            local.imposeNotBefore(host, moments.notBeforeMillis());
        }
        if (moments.isHeldAt(now) && moments.holdUntilMillis() > known.holdUntil().orElse(Long.MIN_VALUE) + SAME_MOMENT_MILLIS) {
            local.holdUntil(host, moments.holdUntilMillis(), moments.holdReason());
        }
        RedisHostKnowledge.LearnedPace learned = moments.learned();
        if (learned != null && learned.learnedAtMillis() > known.paceLearnedAt().orElse(Long.MIN_VALUE) + SAME_MOMENT_MILLIS) {
            local.learn(host, learned.learnedAtMillis(), learned.isPaced()
                    ? Optional.of(new PaceSchedule(learned.refusedRate(), learned.epochMillis(), learned.cycleMillis()))
                    : Optional.<PaceSchedule>empty(), learned.ceiling());
        }
        mirrored.put(host, moments);
    }

    /** What Redis keeps of {@code host}, as the engine's value: every field replayed into a scratch store. */
    static HostKnowledge rebuild(String host, RedisHostKnowledge.Raw raw, long now) {
        InMemoryKnowledgeStore scratch = new InMemoryKnowledgeStore();
        OptionalLong next = raw.offset("next");
        if (next.isPresent()) {
            long moment = now + next.getAsLong();
            scratch.reserveSlot(host, moment - 1, 1, Long.MAX_VALUE / 4); // books moment - 1, so the next slot is the moment
        }
        OptionalLong notBefore = raw.offset("nb");
        if (notBefore.isPresent()) {
            scratch.imposeNotBefore(host, now + notBefore.getAsLong());
        }
        OptionalLong hold = raw.offset("hold");
        if (hold.isPresent()) {
            String reason = raw.fields.get("hold-reason");
            scratch.holdUntil(host, now + hold.getAsLong(), reason == null ? "" : reason);
        }
        OptionalLong learnedAt = raw.offset("learned-at");
        if (learnedAt.isPresent()) {
            String rate = raw.fields.get("rate");
            Optional<PaceSchedule> pace = Optional.empty();
            if (rate != null && Double.parseDouble(rate) > 0) {
                pace = Optional.of(new PaceSchedule(Double.parseDouble(rate), now + raw.offset("epoch").orElse(0),
                        Long.parseLong(raw.fields.get("cycle"))));
            }
            String ceiling = raw.fields.get("ceiling");
            scratch.learn(host, now + learnedAt.getAsLong(), pace,
                    ceiling == null ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(ceiling)));
        }
        OptionalLong costs = raw.offset("costs-since");
        if (costs.isPresent()) {
            scratch.forgetCostsBefore(host, now + costs.getAsLong());
        }
        String distrusted = raw.fields.get("hints-distrusted");
        if (distrusted != null) {
            scratch.distrustHints(host, distrusted);
        }
        List<FinishedStreak> finished = new ArrayList<>();
        for (String stored : raw.streaks) {
            StreakRecord record = StreakRecord.decode(stored, raw.serverNow);
            if (record != null) {
                finished.add(finished(record, now - record.ageMillis()));
            }
        }
        finished.sort((a, b) -> Long.compare(a.startedAtMillis(), b.startedAtMillis()));
        for (FinishedStreak s : finished.subList(Math.max(0, finished.size() - HostKnowledge.MAX_STREAKS), finished.size())) {
            replayFinished(scratch, host, s);
        }
        OptionalLong streakStart = raw.offset("streak-start");
        if (streakStart.isPresent()) {
            long start = now + streakStart.getAsLong();
            long lastSent = now + raw.offset("streak-sent").orElse(streakStart.getAsLong());
            String header = raw.fields.get("streak-header");
            OptionalLong headerMillis = header == null || header.equals("-") ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(header));
            scratch.recordRefusal(host, start, lastSent, headerMillis, "1".equals(raw.fields.get("streak-paced")));
            int count = Integer.parseInt(raw.fields.getOrDefault("streak-refusals", "1"));
            for (int i = 1; i < count; i++) {
                scratch.recordRefusal(host, start, lastSent, OptionalLong.empty(), false);
            }
        }
        return scratch.read(host);
    }

    private static FinishedStreak finished(StreakRecord record, long startedAt) {
        return FinishedStreak.of(startedAt, record.hadHeader() ? OptionalLong.of(record.headerMillis()) : OptionalLong.empty(),
                record.lastRefusedMillis(), record.recoveredByMillis(), record.whilePaced());
    }

    /** A finished streak into a store, through the operations that make one: its first refusal, then its recovery. */
    private static void replayFinished(InMemoryKnowledgeStore store, String host, FinishedStreak s) {
        store.recordRefusal(host, s.startedAtMillis(), s.startedAtMillis() + s.lastRefusedAfterMillis(), s.headerMillis(), s.whilePaced());
        store.recordRecovery(host, s.startedAtMillis() + s.recoveredByMillis());
    }

    private Object lockOf(String host) {
        Object lock = locks.get(host);
        return lock != null ? lock : locks.computeIfAbsent(host, h -> new Object());
    }

    private static final class RefusalSeen {
        final long at;
        final RedisHostKnowledge.FleetRefusal refusal;

        RefusalSeen(long at, RedisHostKnowledge.FleetRefusal refusal) {
            this.at = at;
            this.refusal = refusal;
        }
    }
}
