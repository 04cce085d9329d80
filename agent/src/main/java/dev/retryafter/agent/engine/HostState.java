package dev.retryafter.agent.engine;

import java.util.Locale;
import java.util.concurrent.Executor;

/**
 * Everything the engine knows about one host and port: when it may next be sent a request, its
 * pace, its permits, the refusal streak in progress, the observations that characterise it, any
 * hold, and the counters for the report. Threadsafe: each method holds the state's own lock for a
 * few field updates, never while anyone waits.
 */
public final class HostState {

    private static final long NO_STREAK = Long.MIN_VALUE;

    private final String key;
    private final Policy policy;
    private final HostPermits permits;
    private volatile long lastUsedMillis;

    // Guarded by this.
    private long notBeforeMillis = Long.MIN_VALUE;
    private long nextSlotMillis = Long.MIN_VALUE;
    private long holdUntilMillis = Long.MIN_VALUE;
    private String holdReason;
    private long streakStartMillis = NO_STREAK;
    private long streakHeaderMillis;
    private long streakLastRefusedSentMillis;
    private int streakRefusals;
    private boolean streakWhilePaced;
    private final LongWaitClaim longWaitClaim = new LongWaitClaim();
    private ObservationWindow observations;
    private Characterisation characterisation = Characterisation.UNKNOWN;
    private final LearnedLimit limit;
    private final AdaptivePace pace;
    private int learnedCeiling = LearnedLimit.NONE;

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
    HostState(String key, Policy policy, long now, Executor handOvers) {
        this.key = key;
        this.policy = policy;
        this.permits = new HostPermits(policy.maxConcurrency(), handOvers);
        this.limit = new LearnedLimit(policy.windowMillis());
        this.pace = new AdaptivePace(policy, now);
        this.lastUsedMillis = now;
    }

    /** "host:port". */
    public String key() {
        return key;
    }

    public Policy policy() {
        return policy;
    }

    HostPermits permits() {
        return permits;
    }

    long lastUsedMillis() {
        return lastUsedMillis;
    }

    /** The category decisions are made under: the pinned one, or what the host has shown. */
    public synchronized Category category() {
        Category pinned = policy.pinnedCategory();
        return pinned != null ? pinned : characterisation.category();
    }

    /** While held, every request fails fast: the exception to throw, or null when not held. */
    synchronized HostHeldException heldException(long now) {
        if (now >= holdUntilMillis) {
            return null;
        }
        heldRequests++;
        return new HostHeldException(key, holdUntilMillis, holdReason);
    }

    /**
     * Books this request's moment to go and returns how long to wait for it: no sooner than any wait
     * a refusal imposed, and one pace interval after the previous booking, but never further off than
     * max-sleep. That bound is what makes "never over the ceiling" true of every wait, not only of
     * the one a refusal decides: callers queued behind a long wait would otherwise add their pace
     * intervals to it. The price is that they may go together once it ends, at most
     * max-concurrency of them, into a window that has had max-sleep to recover.
     */
    synchronized long reserveSlot(long now) {
        long slot = Math.min(Math.max(now, Math.max(nextSlotMillis, notBeforeMillis)), now + policy.maxSleepMillis());
        double rate = pace.rate(slot);
        long interval = rate > 0 ? Math.min((long) Math.ceil(1000.0 / rate), policy.maxSleepMillis()) : 0;
        nextSlotMillis = Math.max(nextSlotMillis, slot + interval);
        return slot - now;
    }

    /**
     * After waiting for a booked moment: if a refusal came in meanwhile, the booking is void and the
     * request books again behind it. Returns how much longer to wait; 0 to go now. A hold that began
     * meanwhile is not waited out: the caller checks for it first, and fails fast.
     */
    synchronized long rebookIfRefusedSince(long now) {
        return now < notBeforeMillis ? reserveSlot(now) : 0;
    }

    synchronized void onSent(long now) {
        requests++;
        lastUsedMillis = now;
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
        limit.record(now, true);
        if (streakStartMillis == NO_STREAK || sentAt < streakStartMillis) {
            return null; // sent before the refusal: it says nothing about recovery
        }
        long recovery = now - streakStartMillis;
        long lastRefused = Math.max(0, streakLastRefusedSentMillis - streakStartMillis);
        long recoveredBy = sentAt - streakStartMillis;
        streakStartMillis = NO_STREAK;
        longWaitClaim.forget();
        if (observations == null) {
            observations = new ObservationWindow();
        }
        observations.add(streakHeaderMillis, lastRefused, recoveredBy, streakWhilePaced);
        Characterisation before = characterisation;
        characterisation = HostCharacteriser.characterise(observations);
        if (before.category() != Category.UNKNOWN && before.category() != characterisation.category()) {
            // Refusals cost what they did because of how the old category answered them.
            observations.forgetCosts();
            pace.retime(now, 0);
        }
        boolean changed = before.category() != characterisation.category() || characterisation.medianMovedFarFrom(before);
        return changed ? new CharacterisationChange(before, characterisation, recovery) : null;
    }

    /** A refusal: learn from it, sanitise its header into a wait every later request obeys, and decide. */
    synchronized Decision onRefusal(long now, long sentAt, int status, RetryAfter header, int attempt,
                                    boolean replayable, double random) {
        refusals++;
        streakLastRefusedSentMillis = Math.max(streakLastRefusedSentMillis, sentAt);
        int ceiling = LearnedLimit.NONE;
        double newPace = Double.NaN;
        if (streakStartMillis == NO_STREAK) {
            // Only a streak's first refusal says where the limit is; the rest are its echo.
            streakStartMillis = now;
            streakRefusals = 0;
            streakWhilePaced = pace.rate(now) > 0;
            streakLastRefusedSentMillis = sentAt;
            streakHeaderMillis = header.isUsable() ? header.millis() : ObservationWindow.NO_HEADER;
            ceiling = limit.ceilingBefore(now);
            learnedCeiling = ceiling;
            pace.onRefusal(ceiling, now, observations == null ? 0 : observations.pacedRefusalCost());
            newPace = pace.rate(now);
        }
        limit.record(now, false);
        streakRefusals++;
        Category category = category();

        if (category == Category.TRUTHFUL && header.isUsable() && header.millis() > policy.maxSleepMillis()
                && longWaitClaim.confirmedBy(now + header.millis(), now)) {
            if (now >= holdUntilMillis) {
                holds++; // a refusal in flight that confirms the same hold again does not count twice
            }
            holdUntilMillis = Math.max(holdUntilMillis, now + header.millis());
            holdReason = String.format(Locale.ROOT, "Retry-After named a moment %ds away, beyond max-sleep %ds, twice",
                    header.millis() / 1000, policy.maxSleepMillis() / 1000);
            notBeforeMillis = Math.max(notBeforeMillis, holdUntilMillis);
            return new Decision(key, status, attempt, policy.maxAttempts(), header,
                    new Wait(header.millis(), Reason.HOLD_CONFIRMED, Wait.Bound.NONE), Decision.Outcome.HOLD,
                    category, holdUntilMillis, ceiling, newPace);
        }

        // The exponent counts the host's refusals in a row, not only this call's: a host that has refused
        // ten requests is in no state to take an eleventh half a second later, whoever sends it.
        long backoff = Backoff.fullJitter(Math.max(attempt, streakRefusals), random, policy.backoffBaseMillis(),
                policy.backoffCapMillis());
        Wait wait = Sanitiser.sanitise(policy, category, header, backoff);
        notBeforeMillis = Math.max(notBeforeMillis, now + wait.millis());
        Decision.Outcome outcome;
        if (attempt >= policy.maxAttempts()) {
            outcome = Decision.Outcome.GIVE_UP;
            gaveUp++;
        } else if (!replayable) {
            outcome = Decision.Outcome.NOT_REPLAYABLE;
        } else {
            outcome = Decision.Outcome.RETRY;
            retries++;
        }
        return new Decision(key, status, attempt, policy.maxAttempts(), header, wait, outcome, category,
                Long.MIN_VALUE, ceiling, newPace);
    }

    /**
     * Retires this state if nothing would be lost by forgetting it: no request in flight or waiting
     * for a permit, no hold, no wait owed. A retired state hands out no permit, so a call that looked
     * it up just before goes back to the store and finds the one state that now stands for the host.
     */
    synchronized boolean retireIfIdle(long now) {
        return now >= holdUntilMillis && now >= notBeforeMillis && permits.retireIfIdle();
    }

    boolean isRetired() {
        return permits.isRetired();
    }

    /** A call took a permit here: the host is in use, whether or not the request goes out. */
    void touch(long now) {
        lastUsedMillis = Math.max(lastUsedMillis, now);
    }

    /** A consistent copy of what the report shows. */
    public synchronized HostSnapshot snapshot(long now) {
        return new HostSnapshot(key, policy.name(), requests, refusals, retries, gaveUp, waitedMillis, longestWaitMillis,
                category(), characterisation.medianRatio(), learnedCeiling, policy.windowMillis(), pace.rate(now),
                holds, heldRequests, now < holdUntilMillis ? holdUntilMillis : Long.MIN_VALUE);
    }

    @Override
    public String toString() {
        return "HostState[" + key + "]";
    }
}
