package dev.retryafter.agent.instrument.okhttp;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

/**
 * {@code Dispatcher.finished} ({@code finished$okhttp} in 4.x): in 3.x and 4.x every enqueued call ends here, at its
 * run's end or at a rejection by the dispatcher's executor (shut down), which calls the application's {@code onFailure}
 * and never runs the call (5.x fails such a call through {@code failRejected}: {@link AsyncDoneAdvice}). A turn granted
 * for it gives its permit back ({@link OkHttpCalls#CALL_FINISHED}).
 */
public final class DispatcherFinishedAdvice {

    private DispatcherFinishedAdvice() {
    }

    @Advice.OnMethodEnter
    static void enter(@Advice.Argument(0) Object call) {
        if (call instanceof Runnable) { // an AsyncCall: the overload for a call executed in place has nothing to give back
            AgentHooks.module(OkHttpCalls.CALL_FINISHED, new Object[] {call});
        }
    }
}
