package dev.retryafter.agent.instrument.apache5;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import org.apache.hc.core5.http.HttpResponse;

/**
 * {@code DefaultHttpRequestRetryStrategy.retryRequest(response, execCount, context)}, the default
 * strategy's answer to every response: "no" to a refusal the agent governs, as a guard in front of
 * it would say, and otherwise its own answer. Skipped, the method returns false.
 */
public final class DefaultRetryStrategyAdvice {

    private DefaultRetryStrategyAdvice() {
    }

    /** A success is never a refusal: most answers cost no call into the agent. */
    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static boolean enter(@Advice.Argument(0) HttpResponse response) {
        return response != null && response.getCode() >= AgentHooks.LOWEST_REFUSAL && AgentHooks.isGovernedRefusal(response.getCode());
    }
}
