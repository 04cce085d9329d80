package dev.retryafter.agent.instrument.okhttp;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

/**
 * {@code Dispatcher.finished} ({@code finished$okhttp} from 4.x): every enqueued call ends here, its run's end or a
 * rejection by the dispatcher's executor (shut down), which calls the application's {@code onFailure} and never runs
 * the call. A turn granted for it gives its permit back ({@link OkHttpCalls#CALL_FINISHED}).
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
