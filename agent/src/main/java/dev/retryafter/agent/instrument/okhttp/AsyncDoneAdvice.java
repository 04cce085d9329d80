package dev.retryafter.agent.instrument.okhttp;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

/**
 * The end of an enqueued call's run on OkHttp's dispatcher ({@code AsyncCall.run}, {@code execute}
 * in 3.x), or of a call its executor rejected ({@code failRejected}, 5.x): a turn granted for it that
 * its chain never took (an application interceptor answered without calling {@code proceed}, or no
 * run at all) gives its permit back here.
 */
public final class AsyncDoneAdvice {

    private AsyncDoneAdvice() {
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.FieldValue("this$0") Object call) {
        AgentHooks.module("okhttp.asyncDone", new Object[] {call});
    }
}
