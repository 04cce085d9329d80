package dev.retryafter.agent.instrument.okhttp;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import okhttp3.Request;
import okhttp3.Response;

/**
 * {@code RetryAndFollowUpInterceptor.followUpRequest}: OkHttp sends a 503 with {@code Retry-After: 0}
 * once more by itself. Inside a call the agent governs, that retry is the agent's: OkHttp's would run
 * beneath the agent's loop and double its attempts, unpaced.
 */
public final class FollowUpAdvice {

    private FollowUpAdvice() {
    }

    @Advice.OnMethodExit
    static void exit(@Advice.Argument(0) Response response, @Advice.Return(readOnly = false) Request followUp) {
        if (followUp != null && response != null && AgentHooks.module(OkHttpCalls.FOLLOW_UP, new Object[] {response.code()}) != null) {
            followUp = null;
        }
    }
}
