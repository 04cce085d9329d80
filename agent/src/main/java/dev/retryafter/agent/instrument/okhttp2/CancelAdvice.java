package dev.retryafter.agent.instrument.okhttp2;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

/**
 * OkHttp 2's {@code Call.cancel()}: a call waiting for its turn stops waiting once OkHttp has marked it cancelled, and
 * OkHttp fails it as it would without the agent ({@code IOException: Canceled}).
 */
public final class CancelAdvice {

    private CancelAdvice() {
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.This Object call) {
        AgentHooks.module("okhttp2.cancel", new Object[] {call});
    }
}
