package dev.retryafter.agent.instrument.okhttp;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

/**
 * {@code RealCall.cancel()}, the application's or its call timeout's: a call waiting for its turn stops waiting, once
 * OkHttp has marked it cancelled, and OkHttp fails it as it would without the agent ({@code Canceled}, {@code timeout}).
 */
public final class CancelAdvice {

    private CancelAdvice() {
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.This Object call) {
        AgentHooks.module("okhttp.cancel", new Object[] {call});
    }
}
