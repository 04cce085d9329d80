package dev.retryafter.agent.instrument.apache4;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import org.apache.http.client.ServiceUnavailableRetryStrategy;

/**
 * {@code new ServiceUnavailableRetryExec(next, strategy)}: an application's own strategy (Maven's
 * resolver installs one that honours {@code Retry-After: 0} literally) is wrapped so that it never
 * retries a status the agent governs, in a call the agent governs.
 * Inlined into a constructor of a version-50 class: calls only.
 */
public final class RetryStrategyAdvice {

    private RetryStrategyAdvice() {
    }

    @Advice.OnMethodEnter
    static void enter(@Advice.Argument(value = 1, readOnly = false) ServiceUnavailableRetryStrategy strategy) {
        Object guarded = strategy == null ? null : AgentHooks.module(Apache4Calls.GUARD_STRATEGY, new Object[] {strategy, ServiceUnavailableRetryStrategy.class});
        if (guarded != null) {
            strategy = (ServiceUnavailableRetryStrategy) guarded;
        }
    }
}
