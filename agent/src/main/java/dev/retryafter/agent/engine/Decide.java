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
        // Nor does the backoff outlast the streak's first window: a limit counted per window has room again
        // once the streak is a window old (the successes that filled it all came before its first refusal),
        // so a wait that ends later only skips a window the host would have admitted. The count above still
        // raises the exponent (a fleet's streak counts every JVM's burst), but within the first window the
        // retry is bounded by the window's end; beyond it, the backoff is as before.
        long windowLeft = knowledge.streak == null ? 0 : knowledge.streak.startedAtMillis() + policy.windowMillis() - refusal.now;
        if (windowLeft > 0 && backoff > windowLeft) {
            backoff = windowLeft;
        }
        Wait wait = Sanitiser.sanitise(policy, category, header, backoff);
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

    /** The category decisions are made under: the pinned one, or what the host has shown. */
    static Category categoryOf(Policy policy, HostKnowledge knowledge) {
        Category pinned = policy.pinnedCategory();
        return pinned != null ? pinned : knowledge.characterisation().category();
    }
}
