package dev.retryafter.agent.instrument.apache5;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * {@code DefaultHttpRequestRetryStrategy.retryRequest(response, execCount, context)}, the default
 * strategy's answer to every response: "no" to a refusal the agent governs, as a guard in front of
 * it would say, and otherwise its own answer. Skipped, the method returns false. The async client asks it on an
 * I/O thread, where no governed call is the thread's: the call is then read from the exchange's context.
 */
public final class DefaultRetryStrategyAdvice {

    private DefaultRetryStrategyAdvice() {
    }

    /** A success is never a refusal: most answers cost no call into the agent. */
    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static boolean enter(@Advice.Argument(0) HttpResponse response, @Advice.Argument(2) HttpContext context) {
        return response != null && response.getCode() >= AgentHooks.LOWEST_REFUSAL && AgentHooks.module(Apache5Calls.STANDS_ASIDE,
                new Object[] {response.getCode(), context == null ? null : context.getAttribute(AgentHooks.GOVERNED_CALL)}) != null;
    }
}
