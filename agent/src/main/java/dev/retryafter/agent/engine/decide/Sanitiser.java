package dev.retryafter.agent.engine.decide;

import dev.retryafter.agent.engine.Category;
import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.engine.Reason;
import dev.retryafter.agent.engine.Wait;

import dev.retryafter.agent.engine.header.RetryAfter;

/**
 * Turns a refusal into a wait the engine is willing to take, in named steps:
 * <ol>
 *   <li>read the header as the host's category says it should be read;</li>
 *   <li>with no usable header, take the backoff;</li>
 *   <li>bound the result by the floor and the ceiling, whichever path produced it.</li>
 * </ol>
 * The backoff comes in already jittered, so every number here can be checked exactly.
 */
public final class Sanitiser {

    private Sanitiser() {
    }

    public static Wait sanitise(Policy policy, Category category, RetryAfter header, long backoffMillis) {
        Wait unbounded = header.isUsable()
                ? readHeader(policy, category, header.millis(), backoffMillis)
                : new Wait(backoffMillis, header.form() == RetryAfter.Form.ABSENT ? Reason.NO_HEADER : Reason.UNUSABLE_HEADER,
                        Wait.Bound.NONE);
        return bounded(policy, unbounded);
    }

    private static Wait readHeader(Policy policy, Category category, long headerMillis, long backoffMillis) {
        switch (category) {
            case TRUTHFUL:
                return new Wait(headerMillis, headerMillis > policy.maxSleepMillis()
                        ? Reason.HEADER_BEYOND_CEILING : Reason.HEADER_HONOURED, Wait.Bound.NONE);
            case ALWAYS_ZERO:
                return new Wait(backoffMillis, Reason.HEADER_IGNORED_ALWAYS_ZERO, Wait.Bound.NONE);
            case CONSTANT_OVERSTATED:
                // The guide's "clamp to a learned ceiling": the host recovers far sooner than it says.
                return new Wait(saturatedDouble(backoffMillis), Reason.HEADER_IGNORED_OVERSTATED, Wait.Bound.NONE);
            default:
                if (headerMillis > policy.maxSleepMillis()) {
                    // Not a wait the agent takes for a header it has not proven: max-sleep would stall a host whose
                    // window is seconds long (the constant 3600). A truthful one names the same moment again, and holds.
                    return new Wait(backoffMillis, Reason.UNPROVEN_HEADER_BEYOND_CEILING, Wait.Bound.NONE);
                }
                // Unreliable, absent-until-now, or not yet known: the header is a hint and the safe reading is the larger value.
                return new Wait(Math.max(headerMillis, backoffMillis), Reason.HEADER_AS_HINT, Wait.Bound.NONE);
        }
    }

    /** The floor and the ceiling bound every path, the backoff too: the guide's sketch let backoff fall under the floor. */
    private static Wait bounded(Policy policy, Wait wait) {
        if (wait.millis() < policy.minSleepMillis()) {
            return new Wait(policy.minSleepMillis(), wait.reason(), Wait.Bound.FLOOR);
        }
        if (wait.millis() > policy.maxSleepMillis()) {
            return new Wait(policy.maxSleepMillis(), wait.reason(), Wait.Bound.CEILING);
        }
        return wait;
    }

    private static long saturatedDouble(long millis) {
        return millis > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : millis * 2;
    }
}
