package dev.retryafter.agent.engine;

/**
 * The decision on a refusal, as a pure function: of the policy, what is known of the host (its
 * streak already counting this refusal), the refusal, the attempt, whether the body can be sent
 * again, and a random number for the jitter. It changes nothing; {@link HostState} applies it.
 */
final class Decide {

    private Decide() {
    }

    static Decision onRefusal(String host, Policy policy, HostKnowledge knowledge, Refusal refusal, int attempt,
                              boolean replayable, double random) {
        Category category = categoryOf(policy, knowledge);
        RetryAfter header = refusal.header;
        if (refusal.confirmsLongWait && category == Category.TRUTHFUL && header.isUsable()
                && header.millis() > policy.maxSleepMillis()) {
            long until = Math.max(knowledge.holdUntilMillis, refusal.now + header.millis());
            return new Decision(host, refusal.status, attempt, policy.maxAttempts(), header,
                    new Wait(header.millis(), Reason.HOLD_CONFIRMED, Wait.Bound.NONE), Decision.Outcome.HOLD, category, until);
        }
        // The exponent counts the host's refusals in a row, not only this call's: a host that has refused
        // ten requests is in no state to take an eleventh half a second later, whoever sends it. An echo
        // does not raise it: five JVMs' requests in flight at the first refusal are one refusal, not
        // five, and counted as five they backed the fleet off past the next window.
        int streakRefusals = knowledge.streak != null && !refusal.echo ? knowledge.streak.refusals() : 1;
        long backoff = Backoff.fullJitter(Math.max(attempt, streakRefusals), random, policy.backoffBaseMillis(),
                policy.backoffCapMillis());
        Wait wait = withinFirstWindow(policy, category, header, knowledge.streak, refusal.now,
                Sanitiser.sanitise(policy, category, header, backoff));
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

    /**
     * No wait the agent chose itself outlasts the streak's first window: the successes that filled the
     * limit all came before the streak's first refusal, so a limit counted per window has room again
     * once the streak is a window old, and a longer wait only skips a window the host would have
     * admitted. The streak's count still raises the backoff's exponent (a fleet's streak counts every
     * JVM's burst), but within the first window the retry is bounded by the window's end. A header
     * the category honours (truthful), or takes as a hint (not proven truthful, or unreliable) while
     * it is within max-sleep, keeps its wait; a header beyond max-sleep is not obeyed anyway, and the
     * max-sleep it was cut to is the agent's own choice. Beyond the first window, nothing changes.
     */
    static Wait withinFirstWindow(Policy policy, Category category, RetryAfter header, OpenStreak streak, long now, Wait wait) {
        if (streak == null || category == Category.TRUTHFUL) {
            return wait;
        }
        long windowLeft = streak.startedAtMillis() + policy.windowMillis() - now;
        if (windowLeft <= 0) {
            return wait;
        }
        long claimed = header.isUsable() && header.millis() <= policy.maxSleepMillis()
                && (category == Category.UNKNOWN || category == Category.UNRELIABLE) ? header.millis() : 0;
        long bound = Math.max(Math.max(windowLeft, claimed), policy.minSleepMillis());
        return wait.millis() > bound ? new Wait(bound, wait.reason(), Wait.Bound.WINDOW) : wait;
    }

    /** The category decisions are made under: the pinned one, or what the host has shown. */
    static Category categoryOf(Policy policy, HostKnowledge knowledge) {
        Category pinned = policy.pinnedCategory();
        return pinned != null ? pinned : knowledge.characterisation().category();
    }
}
