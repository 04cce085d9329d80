package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.learn.AdaptivePace;
import dev.retryafter.agent.engine.learn.Characterisation;
import dev.retryafter.agent.engine.decide.Decide;
import dev.retryafter.agent.engine.learn.HintBudget;
import dev.retryafter.agent.engine.knowledge.HostKnowledge;
import dev.retryafter.agent.engine.knowledge.KnowledgeStore;
import dev.retryafter.agent.engine.knowledge.Learned;
import dev.retryafter.agent.engine.learn.LearnedCap;
import dev.retryafter.agent.engine.learn.LearnedLimit;
import dev.retryafter.agent.engine.learn.LimitLearner;
import dev.retryafter.agent.engine.knowledge.LongWaitClaim;
import dev.retryafter.agent.engine.knowledge.ObservedCounts;
import dev.retryafter.agent.engine.knowledge.ObservedTurn;
import dev.retryafter.agent.engine.knowledge.OpenStreak;
import dev.retryafter.agent.engine.learn.PaceSchedule;
import dev.retryafter.agent.engine.knowledge.Refusal;

import dev.retryafter.agent.engine.header.RetryAfter;
import dev.retryafter.agent.engine.header.RateLimitHint;

import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One host and port as this JVM sees it: its permits, a long wait claimed and not yet confirmed, and
 * the counters for the report. What the portal has shown ({@link HostKnowledge}: not-before, pace,
 * hold, streaks) and the successes its ceiling is read from are not kept here but in the
 * {@link KnowledgeStore}, through its operations, so a store a fleet shares counts every JVM's.
 * Threadsafe: each method holds this state's lock for a few updates, never while anyone waits. A
 * request let through takes no lock of this state's: several threads on one busy host would queue
 * on it for every response.
 */
public final class HostState {

    private final String key;
    /** Replaced by a reload ({@link #usePolicy}); a method that reads it more than once reads it once, into a local. */
    private volatile Policy policy;
    private final HostPermits permits;
    /** How many in flight the host takes, as learned: the permits' size, at most the policy's cap. */
    private final LearnedCap learnedCap;
    private final KnowledgeStore store;
    /** The pace a configured start rate gives, until the host teaches one; null when none is configured. */
    private volatile PaceSchedule startPace;
    private volatile long lastUsedMillis;
    /** What the host's traffic teaches of its limit: its window, the rate of its first period, the rate it refuses. */
    private final LimitLearner limit;

    // Guarded by this.
    private final LongWaitClaim longWaitClaim = new LongWaitClaim();
    /** When observe mode last let a request go: what the pace would have spaced the next one from. */
    private long lastObservedSendMillis = HostKnowledge.NO_MOMENT;

    /** What the host's rate-limit headers allow, while they are believed. */
    private final HintBudget hints = new HintBudget();
    /** Whether the store's verdict on the host's hints was read: once, at its first hint. */
    private volatile boolean verdictRead;
    /** Requests sent, each numbered by it ({@link #onSent}); counted without the lock: see the class comment. */
    private final AtomicLong sends = new AtomicLong();
    /** Requests sent and not yet answered: what is at the host now, where the permits count those waiting to go too. */
    private final AtomicInteger atHost = new AtomicInteger();
    /**
     * A hold for refusals that persist or for a block ends in a probe: one request at a time until
     * one is let through. Set with such a hold; read without the lock on every request.
     */
    private volatile boolean probing;
    // Guarded by this.
    /** When the probe under way went; NO_MOMENT: none. A probe unanswered for max-sleep makes room for another. */
    private long probeSentAt = HostKnowledge.NO_MOMENT;
    /** Holds for persistence or blocks in a row, each after a refused probe: the next is twice as long. */
    private int probeHolds;
    private long lastRefusalMillis = HostKnowledge.NO_MOMENT;
    /**
     * How long the host last blocked this client for (a penalty box): what a refusal may cost here, so
     * the probe that would risk one is spaced as far apart as the refusal cost says ({@link AdaptivePace}).
     */
    private long blockCostMillis;
    // Counters for the report, guarded by this.
    private long refusals;
    private final RefusalsByStatus refusalsByStatus = new RefusalsByStatus();
    private long retries;
    private long gaveUp;
    private long holds;
    private long heldRequests;
    /** Requests the application ended while they waited for their turn ({@link #onEndedWhileWaiting()}). */
    private long endedWhileWaiting;
    private long waitedMillis;
    private long longestWaitMillis;
    /** The time requests waited before they were sent, by cause: indexed by {@link Reason#ordinal()}. */
    private final long[] waitedByCause = new long[Reason.values().length];
    /** The moment this JVM's last refusal set for the host, and that refusal's reason: what names a wait for it. */
    private volatile Imposed imposed;
    /** The last refusal's decision and when it was taken, for JMX; null before the first. */
    private Decision lastDecision;
    private long lastDecisionMillis;
    // What enforce mode would have done, in observe mode; guarded by this.
    private long observedRetries;
    private long observedRetryWaitMillis;
    private long observedGaveUp;
    private long observedDelays;
    private long observedDelayMillis;
    private long observedQueued;
    private long observedFailedFast;
    private long observedHolds;
    private final long[] observedDelayByCause = new long[Reason.values().length];

    /** {@code handOvers} runs a permit hand-over that would otherwise recurse: see {@link HostPermits}. */
    HostState(String key, Policy policy, long now, Executor handOvers, KnowledgeStore store) {
        this.key = key;
        this.policy = policy;
        HostKnowledge known = store.read(key);
        // A host the store knows to have refused (the state file, or another JVM of the fleet) is past its slow start;
        // so is one whose policy sets a cap or a rate of its own: someone knows what it takes.
        boolean neverRefused = known.pace == null && known.streaks.isEmpty() && known.streak == null;
        boolean configured = policy.maxConcurrency() != Policy.DEFAULTS.maxConcurrency() || policy.startRatePerSecond() > 0;
        this.learnedCap = new LearnedCap(policy.maxConcurrency(), neverRefused && !configured);
        this.permits = new HostPermits(learnedCap.cap(), handOvers);
        this.store = store;
        this.startPace = new AdaptivePace(policy, now).schedule();
        this.lastUsedMillis = now;
        this.limit = new LimitLearner(key, store, known);
    }

    /** "host:port". */
    public String key() {
        return key;
    }

    public Policy policy() {
        return policy;
    }

    /**
     * A reloaded policy, for requests from now on; what was learned stays. A new cap applies to
     * new acquisitions (permits held now are given back as ever); a new start rate to the pace
     * until the host teaches one; a new window is the one the next ceiling is read over (the store
     * counts the successes, so nothing here restarts).
     */
    synchronized void usePolicy(Policy next, long now) {
        Policy before = policy;
        policy = next;
        if (next.maxConcurrency() != before.maxConcurrency()) {
            learnedCap.usePolicyCap(before.maxConcurrency(), next.maxConcurrency());
            permits.resize(learnedCap.cap());
        }
        if (next.startRatePerSecond() != before.startRatePerSecond() || next.headroom() != before.headroom()) {
            startPace = new AdaptivePace(next, now).schedule();
        }
    }

    /** What the store knows of this host now. */
    public HostKnowledge knowledge() {
        return store.read(key);
    }

    HostPermits permits() {
        return permits;
    }

    public long lastUsedMillis() {
        return lastUsedMillis;
    }

    /** The category decisions are made under: the pinned one, or what the host has shown. */
    public Category category() {
        return Decide.categoryOf(policy, knowledge(), limit.learnedWindowMillis());
    }

    /**
     * While held, every request fails fast: the exception to throw, or null when not held. After a
     * hold that probes, so does every request while the probe is out.
     */
    HostHeldException heldException(long now) {
        HostHeldException held = holdAt(now);
        if (held == null && probing) {
            held = probeOut(now);
        }
        if (held != null) {
            synchronized (this) {
                heldRequests++;
            }
        }
        return held;
    }

    /** The application ended a request while it waited for its turn here (a cancel, an abort, an interrupt). */
    synchronized void onEndedWhileWaiting() {
        endedWhileWaiting++;
    }

    private synchronized HostHeldException probeOut(long now) {
        Policy policy = this.policy;
        if (!probing || probeSentAt == HostKnowledge.NO_MOMENT || now - probeSentAt >= policy.maxSleepMillis()) {
            return null;
        }
        return new HostHeldException(key, now + policy.minSleepMillis(), "a probe is out: one request at a time until one is let through", true);
    }

    private HostHeldException holdAt(long now) {
        HostKnowledge known = knowledge();
        return known.isHeldAt(now) ? new HostHeldException(key, known.holdUntilMillis, known.holdReason) : null;
    }

    /**
     * Observe mode, in place of a turn: what enforce mode would have done with this request now,
     * counted for the report; nothing is booked or held back. The delay is this request's own, as
     * if the requests before it went when they did: any wait a refusal imposed, else the pace's
     * interval since the last request, at most max-sleep.
     */
    synchronized ObservedTurn observeTurn(long now, boolean overCap) {
        Policy policy = this.policy;
        HostHeldException held = holdAt(now);
        if (held != null) {
            observedFailedFast++;
            return new ObservedTurn(0, overCap, held, WaitedTurn.NONE);
        }
        HostKnowledge known = knowledge();
        long refusalWait = known.notBeforeMillis > now ? known.notBeforeMillis - now : 0; // NO_MOMENT is Long.MIN_VALUE: no subtraction
        long wait = refusalWait;
        PaceSchedule pace = paceOf(known);
        if (pace != null && lastObservedSendMillis != HostKnowledge.NO_MOMENT) {
            double rate = pace.rate(now, policy.headroom());
            if (rate > 0) {
                wait = Math.max(wait, lastObservedSendMillis + (long) Math.ceil(1000.0 / rate) - now);
            }
        }
        wait = Math.min(wait, policy.maxSleepMillis());
        lastObservedSendMillis = now;
        if (overCap) {
            observedQueued++;
        }
        WaitedTurn would = WaitedTurn.NONE;
        if (wait > 0) {
            would = new WaitedTurn();
            observedDelays++;
            observedDelayMillis += wait;
            long refusalPart = Math.min(wait, refusalWait);
            Reason refusalCause = causeOfNotBefore(known.notBeforeMillis);
            observedDelayByCause[refusalCause.ordinal()] += refusalPart;
            observedDelayByCause[Reason.PACE.ordinal()] += wait - refusalPart;
            would.add(refusalCause, refusalPart);
            would.add(Reason.PACE, wait - refusalPart);
        }
        return new ObservedTurn(wait, overCap, null, would);
    }

    /**
     * Books this request's moment to go and returns how long to wait for it: no sooner than any wait
     * a refusal imposed, and one pace interval after the previous booking, but never further off than
     * max-sleep. That bound is what makes "never over the ceiling" true of every wait, not only of
     * the one a refusal decides: callers queued behind a long wait would otherwise add their pace
     * intervals to it. The price is that they may go together once it ends, at most
     * max-concurrency of them, into a window that has had max-sleep to recover.
     */
    long reserveSlot(long now, HostKnowledge known) {
        Policy policy = this.policy;
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
     * The turn's booking ({@link #reserveSlot}), or after waiting for a booked moment ({@code booked}),
     * a new one only if a refusal came in meanwhile (the booking is then void, and the request books
     * again behind it). Returns the wait for it, or null to go now. A hold that began meanwhile is not
     * waited out: the caller checks for it first, and fails fast.
     *
     * <p>The wait says why: the time up to the moment a refusal set is that refusal's (named by its
     * reason when this JVM took the decision); the rest is the pace, the requests booked before this
     * one each a pace interval apart. A host with no pace that books ahead of a refusal's moment is
     * behind that refusal all the way.
     */
    TurnStep bookSlot(boolean booked, long now) {
        HostKnowledge known = knowledge();
        if (booked && now >= known.notBeforeMillis) {
            return null;
        }
        long wait = reserveSlot(now, known);
        if (wait <= 0) {
            return null;
        }
        long refusalPart = known.notBeforeMillis > now ? Math.min(wait, known.notBeforeMillis - now) : 0;
        Reason refusalCause = refusalPart > 0 ? causeOfNotBefore(known.notBeforeMillis) : null;
        Reason rest = refusalPart > 0 && paceOf(known) == null ? refusalCause : Reason.PACE;
        return TurnStep.waitFor(wait, refusalPart, refusalCause, rest);
    }

    /** The reason of the refusal that set {@code notBefore}: this JVM's last one if it did, else another's. */
    private Reason causeOfNotBefore(long notBefore) {
        Imposed last = imposed;
        return last != null && last.moment == notBefore ? last.reason : Reason.REFUSAL_WAIT;
    }

    /** A moment a refusal of this JVM's set, and the refusal's reason. */
    private static final class Imposed {
        final long moment;
        final Reason reason;

        Imposed(long moment, Reason reason) {
            this.moment = moment;
            this.reason = reason;
        }
    }

    /** A request went: returns its number among the host's sends, which its response's hints are read against. */
    long onSent(long now) {
        long number = sends.incrementAndGet();
        atHost.incrementAndGet();
        hints.onSent(number);
        if (probing) {
            synchronized (this) {
                if (probeSentAt == HostKnowledge.NO_MOMENT || now - probeSentAt >= policy.maxSleepMillis()) {
                    probeSentAt = now;
                }
            }
        }
        limit.onSent(now);
        touch(now);
        return number;
    }

    /**
     * What the host's rate-limit headers said on the response to send number {@code sentAs} (null:
     * nothing): the hint budget's change of trust, to log, or null.
     */
    HintBudget.Change onHint(RateLimitHint hint, boolean refused, long sentAs, long now) {
        if (hint != null && hints.trust() == HintBudget.Trust.NONE && !verdictRead) {
            // A verdict of an earlier run (the state file) or of another JVM of the fleet stands: a host that lied is not believed again.
            verdictRead = true;
            Optional<String> before = store.readThrough(key).hintsDistrusted();
            if (before.isPresent()) {
                return hints.distrustedBefore(hint, before.get());
            }
        }
        HintBudget.Change change = hints.onResponse(hint, refused, sentAs, sends.get(), now);
        if (change != null && !change.isBelief()) {
            store.distrustHints(key, change.why);
        }
        return change;
    }

    /**
     * The last check before a turn goes: 0 and one place of the believed hints' allowance taken for
     * it, or how long to wait for their reset (another thread took the last place meanwhile).
     */
    long claimHint(long now) {
        return hints.trust() == HintBudget.Trust.BELIEVED ? hints.claim(now, sends.get() + 1) : 0;
    }

    /** How many of this JVM's attempts are at the host now: sent, their exchanges not yet over. */
    int atHost() {
        return atHost.get();
    }

    /** The attempt sent as {@code number} is over, answered or failed. */
    void onAttemptEnded(long number) {
        atHost.decrementAndGet();
        hints.onEnded(number);
    }

    /** Whether a response with this status is worth offering its headers for hints. */
    boolean wantsHints(int status) {
        return hints.wanted(status);
    }

    /**
     * How long the next request must wait for the believed hints' allowance; 0 when it has room.
     * A wait beyond max-sleep is a quota: the host is held until the allowance is whole, and -1
     * returned.
     */
    long hintWait(long now) {
        long wait = hints.waitAt(now, sends.get() + 1);
        Policy policy = this.policy;
        if (wait <= policy.maxSleepMillis()) {
            return wait;
        }
        long until = now + wait;
        synchronized (this) {
            if (!knowledge().isHeldAt(now)) {
                holds++;
            }
        }
        String reason = String.format(Locale.ROOT, "its rate-limit hints say none are left for %ds, beyond max-sleep %ds",
                wait / 1000, policy.maxSleepMillis() / 1000);
        store.holdUntil(key, until, reason);
        pauseProbing(now, until, knowledge());
        return -1;
    }

    /** How the host's rate-limit hints stand, in the report's words. */
    public String hints() {
        return hints.describe();
    }

    /** How long the host's limit takes to have room again: learned, else the policy's window. */
    long windowMillis() {
        return limit.windowMillis(policy);
    }

    /** A call took a permit here: the host is in use, whether or not the request goes out. */
    void touch(long now) {
        if (now > lastUsedMillis) { // written only when it moves: most requests of a busy host share a millisecond
            lastUsedMillis = now;
        }
    }

    /**
     * A wait of {@code plannedMillis} that took {@code actualMillis}. The report keeps the longest
     * planned one, the agent's decision, and the total actual time: a sleep may overrun its plan by
     * however long the operating system takes to wake the thread.
     */
    synchronized void onWaited(TurnStep step, long actualMillis) {
        waitedMillis += actualMillis;
        longestWaitMillis = Math.max(longestWaitMillis, step.waitMillis);
        long first = Math.min(actualMillis, step.firstMillis);
        if (first > 0) {
            waitedByCause[step.firstCause.ordinal()] += first;
        }
        waitedByCause[step.cause.ordinal()] += actualMillis - first;
    }

    /**
     * A request queued {@code millis} for a permit, the host's cap full. Counted by cause only: the
     * report's slept time is the waits the engine decided on, as ever.
     */
    synchronized void onQueued(long millis) {
        waitedByCause[Reason.QUEUE_AT_CAP.ordinal()] += millis;
    }

    /**
     * A response the host let through. If the request went out after the current streak's first
     * refusal, the streak is over: its recovery is measured, not assumed, and the host is
     * re-characterised. Returns the change and what the streak's end taught, or null if nothing changed.
     * Takes this state's lock only when a streak ended.
     */
    Told onAdmitted(long now, long sentAt) {
        store.recordAdmitted(key, now); // the store counts successes: a fleet's ceiling is every JVM's
        limit.onAdmitted(now);
        if (probing) {
            endProbing();
        }
        resizePermits(learnedCap.onAdmitted(policy.maxConcurrency()));
        Optional<KnowledgeStore.StreakEnd> ended = store.recordRecovery(key, sentAt);
        return ended.isPresent() ? onRecovered(now, ended.get()) : null; // else no streak open, or sent before it began
    }

    /** The learned cap moved to {@code cap} (0: it did not move): the permits follow. */
    private void resizePermits(int cap) {
        if (cap > 0) {
            permits.resize(cap);
        }
    }

    private synchronized void endProbing() {
        probing = false;
        probeSentAt = HostKnowledge.NO_MOMENT;
        probeHolds = 0;
    }

    /** How long the next hold for persistence or a block lasts: max-sleep, twice that after each refused probe, at most four times. */
    private long probeHoldMillis() {
        long maxSleep = policy.maxSleepMillis();
        return maxSleep << Math.min(probeHolds, 2);
    }

    /**
     * A response with a block status ({@link Policy#isBlock}): a block if it came while probing or
     * within max-sleep of a refusal, when the host is held and then probed, never retried. Returns
     * the decision, or null when it was not a block (a 403 out of the blue is the application's).
     */
    synchronized Decision onBlocked(long now, int status, int attempt, Mode mode) {
        Policy policy = this.policy;
        if (!policy.isBlock(status) || !(probing || (lastRefusalMillis != HostKnowledge.NO_MOMENT
                && now - lastRefusalMillis <= policy.maxSleepMillis()))) {
            return null;
        }
        HostKnowledge known = knowledge();
        Refusal block = new Refusal(now, status, RetryAfter.ABSENT, false, false, probeHoldMillis());
        Decision decision = Decide.hold(key, policy, block, attempt, RetryAfter.ABSENT, Decide.categoryOf(policy, known, limit.learnedWindowMillis()), known,
                Reason.HOLD_BLOCKED).in(mode);
        blockCostMillis = Math.max(blockCostMillis, block.persistentHoldMillis);
        apply(decision, now, known);
        lastDecision = decision;
        lastDecisionMillis = now;
        return decision;
    }

    private synchronized Told onRecovered(long now, KnowledgeStore.StreakEnd end) {
        long recovery = now - end.streak().startedAtMillis();
        Characterisation before = end.before().characterisation(limit.learnedWindowMillis());
        Characterisation after = end.after().characterisation(limit.learnedWindowMillis());
        // A refusal that came in since the streak ended opened the next one, and learned from it: leave that be.
        // (A copy of the ended streak itself, a fleet's cache not yet refreshed, started no later than it.)
        OpenStreak open = knowledge().streak;
        boolean nextStreakOpen = open != null && open.startedAtMillis() > end.streak().startedAtMillis();
        if (!nextStreakOpen) {
            longWaitClaim.forget();
        }
        if (!nextStreakOpen && before.category() != Category.UNKNOWN && before.category() != after.category()
                && !bothWaitTheHeader(before.category(), after.category())) {
            // Refusals cost what they did because of how the old category answered them.
            store.forgetCostsBefore(key, now);
            AdaptivePace pace = new AdaptivePace(policy, paceOf(end.after()));
            pace.retime(now, 0);
            store.learn(key, now, limit.scheduleOf(pace), OptionalInt.empty());
        }
        Learned learned = limit.onStreakEnded(policy, now, end, paceOf(end.after()), nextStreakOpen);
        boolean changed = before.category() != after.category() || after.medianMovedFarFrom(before);
        return changed || learned != null ? new Told(null, changed ? new CharacterisationChange(before, after, recovery) : null, learned)
                : null;
    }

    /**
     * Truthful and unreliable both wait out a header within max-sleep (honoured, or the larger of it and the
     * backoff), so what a refusal cost under one it costs under the other: a host whose random header is
     * judged one way, then the other, as the evidence comes in keeps its refusals' cost, and its probe's
     * long cycle (forgetting it probed a portal whose refusals cost 30 s each every minute).
     */
    private static boolean bothWaitTheHeader(Category before, Category after) {
        return (before == Category.TRUTHFUL || before == Category.UNRELIABLE) && (after == Category.TRUTHFUL || after == Category.UNRELIABLE);
    }

    /**
     * What a response did to the host, for the listener: a refusal's decision, the category's change (when a
     * streak ended, or a refusal caught the header contradicting itself), and what either taught (a ceiling,
     * a pace). Each null when there is none.
     */
    static final class Told {
        final Decision decision;
        final CharacterisationChange change;
        final Learned learned;

        Told(Decision decision, CharacterisationChange change, Learned learned) {
            this.decision = decision;
            this.change = change;
            this.learned = learned;
        }
    }

    /**
     * A refusal: counted into the host's streak (the first of a streak teaches a ceiling and a pace),
     * decided on by {@link Decide}, then applied: the wait every later request obeys, or a hold.
     * In observe mode it is learned and applied to what is known of the host all the same (so the
     * would-be figures, and a switch to enforce, start from the truth); only the traffic is left alone.
     */
    synchronized Told onRefusal(long now, long sentAt, int status, RetryAfter header, int attempt,
                                boolean replayable, double random, Mode mode) {
        refusals++;
        refusalsByStatus.add(status);
        lastRefusalMillis = now;
        HostKnowledge known = knowledge();
        limit.adoptWindow(known);
        PaceSchedule pace = paceOf(known);
        OpenStreak streak = store.recordRefusal(key, now, sentAt,
                header.isUsable() ? OptionalLong.of(header.millis()) : OptionalLong.empty(),
                AdaptivePace.rate(pace, policy.headroom(), now) > 0);
        Learned learned = null;
        // A refusal that lowers the cap came with more at the host than it takes: a limit on concurrency, not on the rate.
        boolean overCap = false;
        if (mode == Mode.ENFORCE) {
            int lowered = learnedCap.onRefusal(atHost.get(), policy.maxConcurrency());
            resizePermits(lowered);
            overCap = lowered > 0;
        }
        if (streak.isFirstRefusal() && !(overCap && pace != null)) {
            // Only a streak's first refusal says where the limit is; the rest are its echo.
            learned = limit.onFirstRefusal(policy, now, known, pace, Math.max(known.window().pacedRefusalCost(), blockCostMillis));
        }

        HostKnowledge counted = knowledge();
        boolean confirmsLongWait = header.isUsable() && header.millis() > policy.maxSleepMillis()
                && longWaitClaim.confirmedBy(now + header.millis(), now);
        boolean echo = known.streak != null && (sentAt < known.streak.startedAtMillis() || sentAt < known.notBeforeMillis);
        // A probe refused (or the first refusal past max-sleep) holds; an echo of one already held does not hold again.
        Refusal refusal = new Refusal(now, status, header, confirmsLongWait, echo || known.isHeldAt(now), probeHoldMillis(),
                limit.learnedWindowMillis(), limit.periodStartedAtMillis(now - sentAt));
        Decision decision = Decide.onRefusal(key, policy, counted, limit.knownWindowMillis(policy), refusal, attempt, replayable, random).in(mode);
        apply(decision, now, counted);
        lastDecision = decision;
        lastDecisionMillis = now;
        return new Told(decision, distrustedNow(known, counted), learned);
    }

    /** The refusal just counted found the host's {@code Retry-After} contradicting itself: the category may change now. */
    private CharacterisationChange distrustedNow(HostKnowledge before, HostKnowledge after) {
        if (before.retryAfterDistrusted().isPresent() || !after.retryAfterDistrusted().isPresent()) {
            return null;
        }
        long window = limit.learnedWindowMillis();
        return new CharacterisationChange(before.characterisation(window), after.characterisation(window),
                after.retryAfterDistrusted().get());
    }

    private void apply(Decision decision, long now, HostKnowledge known) {
        boolean observed = decision.mode() == Mode.OBSERVE;
        switch (decision.outcome()) {
            case HOLD:
                pauseProbing(now, decision.holdUntil().getAsLong(), known);
                if (!known.isHeldAt(now)) {
                    // a refusal in flight that confirms the same hold again does not count twice
                    if (observed) {
                        observedHolds++;
                    } else {
                        holds++;
                    }
                }
                Reason reason = decision.waitBeforeNextRequest().reason();
                if (reason == Reason.HOLD_PERSISTENT || reason == Reason.HOLD_BLOCKED) {
                    if (!observed) {
                        probing = true;
                        probeSentAt = HostKnowledge.NO_MOMENT;
                        probeHolds++;
                    }
                    store.holdUntil(key, decision.holdUntil().getAsLong(), String.format(Locale.ROOT,
                            reason == Reason.HOLD_BLOCKED ? "answered %d after refusals: blocked; probed again in %ds"
                                    : "refused (%d) for over max-sleep with nothing let through; probed again in %ds",
                            decision.status(), decision.waitBeforeNextRequest().millis() / 1000));
                    return;
                }
                store.holdUntil(key, decision.holdUntil().getAsLong(), String.format(Locale.ROOT,
                        "Retry-After named a moment %ds away, beyond max-sleep %ds, twice",
                        decision.header().millis() / 1000, policy.maxSleepMillis() / 1000));
                return;
            case GIVE_UP:
                if (observed) {
                    observedGaveUp++;
                } else {
                    gaveUp++;
                }
                break;
            case RETRY:
                if (observed) {
                    observedRetries++;
                    observedRetryWaitMillis += decision.waitBeforeNextRequest().millis();
                } else {
                    retries++;
                }
                break;
            default:
                break;
        }
        long moment = now + decision.waitBeforeNextRequest().hostMillis();
        store.imposeNotBefore(key, moment);
        Imposed last = imposed;
        if (last == null || moment >= last.moment) {
            imposed = new Imposed(moment, decision.waitBeforeNextRequest().reason());
        }
    }

    /**
     * A hold stops the probe: nothing is sent, so nothing can refute it, and a curve left to rise
     * through a ten-minute hold would come out of it at many times the rate refused. The pace
     * resumes on its plateau when the hold ends.
     */
    private void pauseProbing(long now, long until, HostKnowledge known) {
        PaceSchedule current = known.pace;
        if (current == null) {
            return;
        }
        AdaptivePace pace = new AdaptivePace(policy, current);
        pace.fromPlateau(current.refusedRatePerSecond(), until);
        store.learn(key, now, limit.scheduleOf(pace), OptionalInt.empty());
    }

    /**
     * An operator holds the host until {@code until}: its requests fail fast until then, as in a hold of the agent's
     * own (a later hold already in place stands). Returns the moment the host is held until now.
     */
    public long holdByOperator(long now, long until, String reason) {
        synchronized (this) {
            if (!knowledge().isHeldAt(now)) {
                holds++;
            }
        }
        store.holdUntil(key, until, reason);
        HostKnowledge known = knowledge();
        pauseProbing(now, until, known);
        // The later hold stands (holdUntil merges so): a fleet store's copy read back a moment old may not show this one yet.
        return Math.max(until, known.holdUntilMillis);
    }

    private PaceSchedule paceOf(HostKnowledge known) {
        return known.pace != null ? known.pace : startPace;
    }

    /**
     * Retires this state if nothing would be lost by forgetting it: no request in flight or waiting
     * for a permit, no hold, no wait owed. A retired state hands out no permit, so a call that looked
     * it up just before goes back to the store and finds the one state that now stands for the host.
     */
    public synchronized boolean retireIfIdle(long now) {
        if (!knowledge().owesNothingAt(now) || !permits.retireIfIdle()) {
            return false;
        }
        store.forget(key);
        return true;
    }

    /**
     * Retires this state and drops what the store knows of the host, held or owed a wait or not, if no
     * request holds or waits for a permit: an operator's "forget", where {@link #retireIfIdle} is eviction's.
     */
    public synchronized boolean retireAndForget() {
        if (!permits.retireIfIdle()) {
            return false;
        }
        store.forget(key);
        return true;
    }

    public boolean isRetired() {
        return permits.isRetired();
    }

    /** A consistent copy of what the report shows. */
    public synchronized HostSnapshot snapshot(long now) {
        Policy policy = this.policy;
        HostKnowledge known = knowledge();
        return new HostSnapshot(key, policy.name(), sends.get(), refusals, refusalsByStatus.pairs(), retries, gaveUp, waitedMillis,
                longestWaitMillis, Decide.categoryOf(policy, known, limit.learnedWindowMillis()),
                known.characterisation(limit.learnedWindowMillis()).rawMedianRatio(), known.learnedCeiling().orElse(LearnedLimit.NONE), windowMillis(),
                AdaptivePace.rate(paceOf(known), policy.headroom(), now), holds, heldRequests, endedWhileWaiting,
                known.isHeldAt(now) ? known.holdUntilMillis : Long.MIN_VALUE, permits.inUse(), learnedCap.cap(),
                lastDecision, lastDecisionMillis,
                new ObservedCounts(observedRetries, observedRetryWaitMillis, observedGaveUp, observedDelays,
                        observedDelayMillis, observedQueued, observedFailedFast, observedHolds,
                        WaitsByCause.copyOf(observedDelayByCause)), hints.describe(), known.retryAfterDistrusted().orElse(null),
                WaitsByCause.copyOf(waitedByCause));
    }

    @Override
    public String toString() {
        return "HostState[" + key + "]";
    }
}
