package dev.retryafter.agent.instrument.apache5;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import org.apache.hc.client5.http.HttpRequestRetryStrategy;

/**
 * {@code new HttpRequestRetryExec(strategy)}: the strategy, the default one included, is wrapped so
 * that it never retries a status the agent governs. Its default honours {@code Retry-After} with
 * no ceiling and retries beneath the agent's loop. Inlined into a constructor, before {@code super()}.
 */
public final class RetryStrategyAdvice {

    private RetryStrategyAdvice() {
    }

    @Advice.OnMethodEnter
    static void enter(@Advice.Argument(value = 0, readOnly = false) HttpRequestRetryStrategy strategy) {
        Object guarded = strategy == null ? null : AgentHooks.module(Apache5Calls.GUARD_STRATEGY, new Object[] {strategy, HttpRequestRetryStrategy.class});
        if (guarded != null) {
            strategy = (HttpRequestRetryStrategy) guarded;
        }
    }
}
