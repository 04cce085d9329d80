package dev.retryafter.agent.engine;

import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.Executor;

/**
 * One host and port as this JVM sees it: its permits, a long wait claimed and not yet confirmed, and
 * the counters for the report. What the portal has shown ({@link HostKnowledge}: not-before, pace,
 * hold, streaks) and the successes its ceiling is read from are not kept here but in the
 * {@link KnowledgeStore}, through its operations, so a store a fleet shares counts every JVM's.
 * Threadsafe: each method holds this state's lock for a few updates, never while anyone waits.
 */
public final class HostState {

    private final String key;
    private final Policy policy;
    private final HostPermits permits;
    private final KnowledgeStore store;
    /** The pace a configured start rate gives, until the host teaches one; null when none is configured. */
    private final PaceSchedule startPace;
    private volatile long lastUsedMillis;

    // Guarded by this.
    private final LongWaitClaim longWaitClaim = new LongWaitClaim();

    // Counters for the report, guarded by this.
    private long requests;
    private long refusals;
    private long retries;
    private long gaveUp;
    private long holds;
    private long heldRequests;
    private long waitedMillis;
    private long longestWaitMillis;

    /** {@code handOvers} runs a permit hand-over that would otherwise recurse: see {@link HostPermits}. */
    HostState(String key, Policy policy, long now, Executor handOvers, KnowledgeStore store) {
        this.key = key;
        this.policy = policy;
        this.permits = new HostPermits(policy.maxConcurrency(), handOvers);
        this.store = store;
        this.startPace = new AdaptivePace(policy, now).schedule();
        this.lastUsedMillis = now;
    }

    /** "host:port". */
    public String key() {
        return key;
    }

    public Policy policy() {
        return policy;
    }

    /** What the store knows of this host now. */
    public HostKnowledge knowledge() {
        return store.read(key);
    }

    HostPermits permits() {
        return permits;
    }

    long lastUsedMillis() {
        return lastUsedMillis;
    }

    /** The category decisions are made under: the pinned one, or what the host has shown. */
    public Category category() {
        return Decide.categoryOf(policy, knowledge());
    }

    /** While held, every request fails fast: the exception to throw, or null when not held. */
    HostHeldException heldException(long now) {
        HostKnowledge known = knowledge();
        if (!known.isHeldAt(now)) {
            return null;
        }
        synchronized (this) {
            heldRequests++;
        }
        return new HostHeldException(key, known.holdUntilMillis, known.holdReason);
    }

    /**
     * Books this request's moment to go and returns how long to wait for it: no sooner than any wait
     * a refusal imposed, and one pace interval after the previous booking, but never further off than
     * max-sleep. That bound is what makes "never over the ceiling" true of every wait, not only of
     * the one a refusal decides: callers queued behind a long wait would otherwise add their pace
     * intervals to it. The price is that they may go together once it ends, at most
     * max-concurrency of them, into a window that has had max-sleep to recover.
     */
    long reserveSlot(long now) {
        HostKnowledge known = knowledge();
        PaceSchedule pace = paceOf(known);
        long interval = 0;
        if (pace != null) {
            // The rate at the moment the slot is likely to fall; the store books the slot itself.
            long slot = Math.min(Math.max(now, Math.max(known.nextSlotMillis, known.notBeforeMillis)), now + policy.maxSleepMillis());
            double rate = pace.rate(slot, policy.headroom());
            interval = rate > 0 ? Math.min((long) Math.ceil(1000.0 / rate), policy.maxSleepMillis()) : 0;
        }
        return store.reserveSlot(key, now, interval, policy.maxSleepMillis());
    }

    /**
     * After waiting for a booked moment: if a refusal came in meanwhile, the booking is void and the
     * request books again behind it. Returns how much longer to wait; 0 to go now. A hold that began
     * meanwhile is not waited out: the caller checks for it first, and fails fast.
     */
    long rebookIfRefusedSince(long now) {
        return now < knowledge().notBeforeMillis ? reserveSlot(now) : 0;
    }

    synchronized void onSent(long now) {
        requests++;
        lastUsedMillis = now;
    }

    /** A call took a permit here: the host is in use, whether or not the request goes out. */
    void touch(long now) {
        lastUsedMillis = Math.max(lastUsedMillis, now);
    }

    /**
     * A wait of {@code plannedMillis} that took {@code actualMillis}. The report keeps the longest
     * planned one, the agent's decision, and the total actual time: a sleep may overrun its plan by
     * however long the operating system takes to wake the thread.
     */
    synchronized void onWaited(long plannedMillis, long actualMillis) {
        waitedMillis += actualMillis;
        longestWaitMillis = Math.max(longestWaitMillis, plannedMillis);
    }

    /**
     * A response the host let through. If the request went out after the current streak's first
     * refusal, the streak is over: its recovery is measured, not assumed, and the host is
     * re-characterised. Returns the change, or null if nothing changed.
     */
    synchronized CharacterisationChange onAdmitted(long now, long sentAt) {
        store.recordAdmitted(key, now); // the store counts successes: a fleet's ceiling is every JVM's
        Optional<KnowledgeStore.StreakEnd> ended = store.recordRecovery(key, sentAt);
        if (!ended.isPresent()) {
            return null; // no streak open, or sent before it began: it says nothing about recovery
        }
        KnowledgeStore.StreakEnd end = ended.get();
        longWaitClaim.forget();
        long recovery = now - end.streak().startedAtMillis();
        Characterisation before = end.before().characterisation();
        Characterisation after = end.after().characterisation();
        if (before.category() != Category.UNKNOWN && before.category() != after.category()) {
            // Refusals cost what they did because of how the old category answered them.
            store.forgetCostsBefore(key, now);
            AdaptivePace pace = new AdaptivePace(policy, paceOf(end.after()));
            pace.retime(now, 0);
            store.learn(key, now, Optional.ofNullable(pace.schedule()), OptionalInt.empty());
        }
        boolean changed = before.category() != after.category() || after.medianMovedFarFrom(before);
        return changed ? new CharacterisationChange(before, after, recovery) : null;
    }

    /** A refusal, decided on and applied; what it taught, if it began a streak. */
    static final class Refused {
        final Decision decision;
        final Learned learned;

        Refused(Decision decision, Learned learned) {
            this.decision = decision;
            this.learned = learned;
        }
    }

    /**
     * A refusal: counted into the host's streak (the first of a streak teaches a ceiling and a pace),
     * decided on by {@link Decide}, then applied: the wait every later request obeys, or a hold.
     */
    synchronized Refused onRefusal(long now, long sentAt, int status, RetryAfter header, int attempt,
                                   boolean replayable, double random) {
        refusals++;
        HostKnowledge known = knowledge();
        PaceSchedule pace = paceOf(known);
        OpenStreak streak = store.recordRefusal(key, now, sentAt,
                header.isUsable() ? OptionalLong.of(header.millis()) : OptionalLong.empty(),
                AdaptivePace.rate(pace, policy.headroom(), now) > 0);
        Learned learned = null;
        if (streak.isFirstRefusal()) {
            // Only a streak's first refusal says where the limit is; the rest are its echo.
            int ceiling = store.ceilingBefore(key, now, policy.windowMillis());
            AdaptivePace next = new AdaptivePace(policy, pace);
            next.onRefusal(ceiling, now, known.window().pacedRefusalCost());
            store.learn(key, now, Optional.ofNullable(next.schedule()), OptionalInt.of(ceiling));
            learned = new Learned(key, ceiling, policy.windowMillis(), next.rate(now));
        }

        HostKnowledge counted = knowledge();
        boolean confirmsLongWait = Decide.categoryOf(policy, counted) == Category.TRUTHFUL && header.isUsable()
                && header.millis() > policy.maxSleepMillis() && longWaitClaim.confirmedBy(now + header.millis(), now);
        boolean echo = known.streak != null && (sentAt < known.streak.startedAtMillis() || sentAt < known.notBeforeMillis);
        Decision decision = Decide.onRefusal(key, policy, counted, new Refusal(now, status, header, confirmsLongWait, echo), attempt,
                replayable, random);
        apply(decision, now, counted);
        return new Refused(decision, learned);
    }

    private void apply(Decision decision, long now, HostKnowledge known) {
        switch (decision.outcome()) {
            case HOLD:
                if (!known.isHeldAt(now)) {
                    holds++; // a refusal in flight that confirms the same hold again does not count twice
                }
                store.holdUntil(key, decision.holdUntil().getAsLong(), String.format(Locale.ROOT,
                        "Retry-After named a moment %ds away, beyond max-sleep %ds, twice",
                        decision.header().millis() / 1000, policy.maxSleepMillis() / 1000));
                return;
            case GIVE_UP:
                gaveUp++;
                break;
            case RETRY:
                retries++;
                break;
            default:
                break;
        }
        store.imposeNotBefore(key, now + decision.waitBeforeNextRequest().millis());
    }

    private PaceSchedule paceOf(HostKnowledge known) {
        return known.pace != null ? known.pace : startPace;
    }

    /**
     * Retires this state if nothing would be lost by forgetting it: no request in flight or waiting
     * for a permit, no hold, no wait owed. A retired state hands out no permit, so a call that looked
     * it up just before goes back to the store and finds the one state that now stands for the host.
     */
    synchronized boolean retireIfIdle(long now) {
        if (!knowledge().owesNothingAt(now) || !permits.retireIfIdle()) {
            return false;
        }
        store.forget(key);
        return true;
    }

    boolean isRetired() {
        return permits.isRetired();
    }

    /** A consistent copy of what the report shows. */
    public synchronized HostSnapshot snapshot(long now) {
        HostKnowledge known = knowledge();
        return new HostSnapshot(key, policy.name(), requests, refusals, retries, gaveUp, waitedMillis, longestWaitMillis,
                Decide.categoryOf(policy, known), known.characterisation().rawMedianRatio(),
                known.learnedCeiling().orElse(LearnedLimit.NONE), policy.windowMillis(),
                AdaptivePace.rate(paceOf(known), policy.headroom(), now), holds, heldRequests,
                known.isHeldAt(now) ? known.holdUntilMillis : Long.MIN_VALUE);
    }

    @Override
    public String toString() {
        return "HostState[" + key + "]";
    }
}
