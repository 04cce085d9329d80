package dev.retryafter.agent.engine.decide;

import dev.retryafter.agent.engine.Category;
import dev.retryafter.agent.engine.Decision;
import dev.retryafter.agent.engine.knowledge.HostKnowledge;
import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.knowledge.OpenStreak;
import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.engine.Reason;
import dev.retryafter.agent.engine.knowledge.Refusal;
import dev.retryafter.agent.engine.Wait;

import dev.retryafter.agent.engine.header.RetryAfter;

/**
 * The decision on a refusal, as a pure function: of the policy, what is known of the host (its
 * streak already counting this refusal), the refusal, the attempt, whether the body can be sent
 * again, and a random number for the jitter. It changes nothing; {@link HostState} applies it. The
 * window is the host's as learned ({@link HostState#windowMillis()}), the policy's until then.
 */
public final class Decide {

    private Decide() {
    }

    public static Decision onRefusal(String host, Policy policy, HostKnowledge knowledge, long windowMillis, Refusal refusal, int attempt,
                              boolean replayable, double random) {
        Category category = categoryOf(policy, knowledge, refusal.periodMillis);
        RetryAfter header = refusal.header;
        // A moment named twice is believed whatever the host's category: a lie names a moment that moves (LongWaitClaim).
        if (refusal.confirmsLongWait && header.isUsable() && header.millis() > policy.maxSleepMillis()) {
            long until = Math.max(knowledge.holdUntilMillis, refusal.now + header.millis());
            return new Decision(host, refusal.status, attempt, policy.maxAttempts(), header,
                    new Wait(header.millis(), Reason.HOLD_CONFIRMED, Wait.Bound.NONE), Decision.Outcome.HOLD, category, until);
        }
        // Refused for longer than max-sleep, than the window the policy names and than a minute (a streak shorter than
        // that is a window waited out), with nothing let through, and as often as a request has attempts: a quota or a
        // box. Waiting it out request by request only spends every record's attempts; a hold fails them fast and probes.
        if (refusal.persistentHoldMillis > 0 && !refusal.echo && knowledge.streak != null
                && refusal.now - knowledge.streak.startedAtMillis() >= persistsAfterMillis(policy)
                && knowledge.streak.refusals() >= policy.maxAttempts()) {
            return hold(host, policy, refusal, attempt, header, category, knowledge, Reason.HOLD_PERSISTENT);
        }
        // The host's first streak, its window not found, a whole default window old, and a request's last try refused:
        // the limit's window is longer than a window waited out. The host is held until the streak is a quota's age,
        // when the last try would otherwise have gone, and the request fails fast with the hold instead of being lost.
        if (attempt >= policy.maxAttempts() && windowMillis <= 0 && !refusal.echo && knowledge.streak != null
                && refusal.now - knowledge.streak.startedAtMillis() >= policy.windowMillis()) {
            long until = Math.max(knowledge.holdUntilMillis, knowledge.streak.startedAtMillis() + persistsAfterMillis(policy));
            if (until > refusal.now) {
                return new Decision(host, refusal.status, attempt, policy.maxAttempts(), header,
                        new Wait(until - refusal.now, Reason.HOLD_WINDOW_NOT_FOUND, Wait.Bound.NONE), Decision.Outcome.HOLD, category, until);
            }
        }
        // The exponent counts the host's refusals in a row, not only this call's: a host that has refused
        // ten requests is in no state to take an eleventh half a second later, whoever sends it. An echo
        // does not raise it: five JVMs' requests in flight at the first refusal are one refusal, not
        // five, and counted as five they backed the fleet off past the next window.
        int streakRefusals = knowledge.streak != null && !refusal.echo ? knowledge.streak.refusals() : 1;
        long backoff = Backoff.fullJitter(Math.max(attempt, streakRefusals), random, policy.backoffBaseMillis(),
                policy.backoffCapMillis());
        int triesLeft = policy.maxAttempts() - attempt;
        Wait wait = withinFirstWindow(policy, windowMillis, triesLeft, category, header, knowledge.streak, refusal.now,
                Sanitiser.sanitise(policy, category, header, backoff), refusal.periodStartedAtMillis);
        Decision.Outcome outcome;
        if (attempt >= policy.maxAttempts()) {
            outcome = Decision.Outcome.GIVE_UP;
        } else if (!replayable) {
            outcome = Decision.Outcome.NOT_REPLAYABLE;
        } else {
            outcome = Decision.Outcome.RETRY;
        }
        return new Decision(host, refusal.status, attempt, policy.maxAttempts(), header, wait, outcome, category,
                HostKnowledge.NO_MOMENT);
    }

    /** A streak of refusals this old, with nothing let through, is a quota or a box rather than a window. */
    public static long persistsAfterMillis(Policy policy) {
        return Math.max(Math.max(policy.maxSleepMillis(), policy.windowMillis()), PERSISTS_AFTER_MILLIS);
    }

    /** However short max-sleep and the window, a streak under a minute is not called a quota. */
    static final long PERSISTS_AFTER_MILLIS = 60_000;

    /**
     * Inside a window learned shorter than a quota, a request's last try goes once its streak is this many
     * times as old as at the refusal before it: four tries spaced by the backoff cover a few seconds, and a
     * streak that outlasted them (a fixed window exhausted early) is given twice as long again, where
     * waiting for the whole learned window would idle the host for most of it.
     */
    static final int LAST_TRY_STREAK_MULTIPLE = 3;

    /** A hold of {@link Refusal#persistentHoldMillis} for {@code reason}: a persistent streak, or a block. */
    public static Decision hold(String host, Policy policy, Refusal refusal, int attempt, RetryAfter header, Category category,
                         HostKnowledge knowledge, Reason reason) {
        long until = Math.max(knowledge.holdUntilMillis, refusal.now + refusal.persistentHoldMillis);
        return new Decision(host, refusal.status, attempt, policy.maxAttempts(), header,
                new Wait(until - refusal.now, reason, Wait.Bound.NONE), Decision.Outcome.HOLD, category, until);
    }

    /**
     * No wait the agent chose itself outlasts the streak's first window: the successes that filled the
     * limit all came before the streak's first refusal, so a limit counted per window has room again
     * once the streak is a window old, and a longer wait only skips a window the host would have
     * admitted. The streak's count still raises the backoff's exponent (a fleet's streak counts every
     * JVM's burst), but within the first window the retry is bounded by the window's end. A header
     * the category honours (truthful), or takes as a hint (not proven truthful, or unreliable) while
     * it is within max-sleep, keeps its wait; a header beyond max-sleep is not obeyed anyway, and the
     * max-sleep it was cut to is the agent's own choice. Beyond the first window, nothing changes.
     *
     * <p>A window of 0 is one not learned yet (the host's first streak): the end is then looked for as
     * the streak ages ({@link #searchedWindowLeft}).
     *
     * <p>A request's last tries are kept for moments the host is likely to have room ({@link #lastTriesUntil}),
     * since a refusal of the last loses its record.
     */
    public static Wait withinFirstWindow(Policy policy, long windowMillis, int triesLeft, Category category, RetryAfter header,
                                  OpenStreak streak, long now, Wait wait) {
        return withinFirstWindow(policy, windowMillis, triesLeft, category, header, streak, now, wait, HostKnowledge.NO_MOMENT);
    }

    /**
     * As {@link #withinFirstWindow(Policy, long, int, Category, RetryAfter, OpenStreak, long, Wait)}, for a host whose
     * first period began at {@code periodStartedAt} ({@link HostKnowledge#NO_MOMENT}: not known): the search for its
     * window's end spends tries on the moments a window of a length portals configure would end ({@link RoundWindows}).
     */
    public static Wait withinFirstWindow(Policy policy, long windowMillis, int triesLeft, Category category, RetryAfter header,
                                  OpenStreak streak, long now, Wait wait, long periodStartedAt) {
        if (streak == null || category == Category.TRUTHFUL) {
            return wait;
        }
        long age = now - streak.startedAtMillis();
        // Every refusal of the streak this request's: no other request is looking for the window's end.
        boolean alone = streak.refusals() <= policy.maxAttempts() - triesLeft;
        boolean searching = windowMillis <= 0 && age < policy.windowMillis();
        long searched = searching ? searchedAtRoundEnd(policy, searchedWindowLeft(policy, age), triesLeft, alone, now, periodStartedAt)
                : searchedWindowLeft(policy, age);
        Wait bounded = cutToWindow(policy, windowMillis > 0 ? windowMillis - age : searched, header, category, wait);
        // Never past max-sleep: the search is the agent's own choice, and max-sleep bounds every sleep it chooses.
        long searchStep = Math.min(Math.max(searched, policy.minSleepMillis()), policy.maxSleepMillis());
        if (searching && bounded.millis() < searchStep) {
            // The search for the window's end goes on at the pace of the streak's age, not faster: among several
            // workers, waits drawn short spent every request's tries in the first seconds of a 20 s window.
            bounded = new Wait(searchStep, wait.reason(), Wait.Bound.SEARCH);
        }
        long until = lastTriesUntil(policy, windowMillis, triesLeft, age, alone);
        if (searching && alone && triesLeft == 2 && until > age) {
            // The lone request's second-last try, two thirds of the way on a log scale, goes at a round window's end near there.
            long start = streak.startedAtMillis();
            until = RoundWindows.nearestEnd(periodStartedAt, start + until, now + policy.minSleepMillis(), policy.windowMillis()) - start;
        }
        long lastTries = Math.min(until - age, policy.maxSleepMillis());
        if (lastTries > bounded.millis()) {
            // In the host's first streak the raise is the request's own: the host goes on looking for the window's end.
            return new Wait(lastTries, wait.reason(), Wait.Bound.LAST_TRY, searching && triesLeft > 1 ? bounded.millis() : lastTries);
        }
        return bounded;
    }

    /**
     * How long the search for the window's end waits, {@code step} as the streak's age gives it, where it can go at
     * a round window's end instead ({@link RoundWindows}). A lone request's third try, after refusals at 0 and 1 s, looks
     * for the shortest round window not yet ended rather than the next second: its tries are the whole search, and a
     * 10 s window that one worker filled in 5 s was found at 24.6 s, read as 100 in 24.6 s, and climbed back for 80 s
     * (the limiter benchmark's 10 s / 100: 0.78; now 0.97). Among several workers a step that ends before a round
     * window's end by half the step or less waits for it (a step that ends on one keeps it): four workers found that
     * window at 13.2 s (0.93; now 0.97), and the window sweep's worst cell on four workers went from 0.75 to 0.89.
     */
    private static long searchedAtRoundEnd(Policy policy, long step, int triesLeft, boolean alone, long now, long periodStartedAt) {
        if (alone && policy.maxAttempts() - triesLeft == 2 && triesLeft > 2) {
            long end = RoundWindows.firstEndAfter(periodStartedAt, now, policy.windowMillis());
            return end != HostKnowledge.NO_MOMENT ? end - now : step;
        }
        if (!alone) {
            long end = RoundWindows.firstEndAfter(periodStartedAt, now + step - 1, policy.windowMillis());
            return end != HostKnowledge.NO_MOMENT && end - now <= 1.5 * step ? end - now : step;
        }
        return step;
    }

    /** {@code wait} cut to {@code windowLeft}, or a header's claim within max-sleep the category takes as a hint; never under min-sleep. */
    private static Wait cutToWindow(Policy policy, long windowLeft, RetryAfter header, Category category, Wait wait) {
        if (windowLeft <= 0) {
            return wait;
        }
        long claimed = header.isUsable() && header.millis() <= policy.maxSleepMillis()
                && (category == Category.UNKNOWN || category == Category.UNRELIABLE) ? header.millis() : 0;
        long bound = Math.max(Math.max(windowLeft, claimed), policy.minSleepMillis());
        return wait.millis() > bound ? new Wait(bound, wait.reason(), Wait.Bound.WINDOW) : wait;
    }

    /**
     * How long a wait may last in a streak whose window is neither learned nor configured: at most half as
     * long as the streak is old, so the window's end is found within 1.5 times its length, in a number of
     * refusals that grows with the log of that length; and, while the streak is younger than the policy's
     * default window, no later than its end, the moment a request's last tries already wait for
     * ({@link #lastTriesUntil}). Several workers' refusals are each some request's first tries, so none
     * reached its last and the host's waits passed a 60 s window's end by up to half of it: on eight
     * workers the ingestion benchmark's always-zero portal (60 a minute) waited from 58 s to 86 s of its
     * first streak, read its limit as 60 in 86 s, and ran at 0.85 of the limit; 0.98 with this bound.
     * A longer window costs one refusal more, at the default window's end.
     */
    public static long searchedWindowLeft(Policy policy, long age) {
        long halfTheAge = Math.max(age / 2, 0);
        long defaultWindow = policy.windowMillis();
        return age < defaultWindow ? Math.min(halfTheAge, defaultWindow - age) : halfTheAge;
    }

    /**
     * How old the streak should be when a request with {@code triesLeft} tries after this refusal sends the
     * next (0 or less: no such rule, the wait stands). A refusal of the last try loses the record, so:
     * <ul>
     *   <li>in a streak already older than the window (learned, else the policy's, a hint), or under a window
     *       no shorter than a quota's ({@link #persistsAfterMillis}), the last try waits until the streak is
     *       a quota's age: refused then, it holds the host, and its request fails fast with the rest of the
     *       hold instead of being lost;</li>
     *   <li>in the host's first streak, no window learned or configured, the last two tries wait for the end
     *       of the policy's default window: a second-last try refused there shows the streak is longer, and the last waits
     *       as above (a request out of tries here waits the window too: its wait holds back every other);</li>
     *   <li>there, a request {@code alone} in the streak (every refusal of it its own: one worker, whose tries are
     *       the whole search) sends its second-last try two thirds of the way to that end on a log scale, 19 s after
     *       refusals at 0, 1 and 2 s, where waiting for the end found a window of 10 s or 20 s at 60 s ({@link #withinFirstWindow}
     *       moves it to a round window's end near there); its last
     *       goes at the end, and refused there it holds the host until a quota's age ({@link #onRefusal}), when it
     *       would otherwise have gone;</li>
     *   <li>else, under a window learned or configured, the last try goes once the streak is {@link #LAST_TRY_STREAK_MULTIPLE}
     *       times as old, within the window.</li>
     * </ul>
     */
    public static long lastTriesUntil(Policy policy, long windowMillis, int triesLeft, long age) {
        return lastTriesUntil(policy, windowMillis, triesLeft, age, true);
    }

    /** As {@link #lastTriesUntil(Policy, long, int, long)}, for a request alone in the streak or among others. */
    public static long lastTriesUntil(Policy policy, long windowMillis, int triesLeft, long age, boolean alone) {
        long window = windowMillis > 0 ? windowMillis : policy.windowMillis();
        long quota = persistsAfterMillis(policy);
        if (triesLeft == 1 && (age >= window || window >= quota)) {
            return quota;
        }
        if (triesLeft == 2 && windowMillis <= 0 && age < window && alone) {
            // Two thirds of the way on a log scale: one point for windows of 3 s to 60 s, so no window's end is missed by
            // more than a factor of 3 or so. Half-way (11 s) found 10 s windows sooner and missed 20 s ones (one worker:
            // WindowSweep 0.90 on average, 0.65 at worst; two thirds 0.91, 0.69; the limiter benchmark's 20 s cell 0.98).
            return (long) (Math.pow(Math.max(age, 0), 1 / 3.0) * Math.pow(window, 2 / 3.0));
        }
        if (triesLeft <= 2 && windowMillis <= 0 && age < window) {
            return window;
        }
        return triesLeft == 1 ? Math.min(window, LAST_TRY_STREAK_MULTIPLE * age) : 0;
    }

    /** The category decisions are made under: the pinned one, or what the host has shown. */
    public static Category categoryOf(Policy policy, HostKnowledge knowledge) {
        return categoryOf(policy, knowledge, 0);
    }

    /** As {@link #categoryOf(Policy, HostKnowledge)}, the host's period learned ({@code periodMillis}, 0: none) bounding its recoveries. */
    public static Category categoryOf(Policy policy, HostKnowledge knowledge, long periodMillis) {
        Category pinned = policy.pinnedCategory();
        return pinned != null ? pinned : knowledge.characterisation(periodMillis).category();
    }
}
