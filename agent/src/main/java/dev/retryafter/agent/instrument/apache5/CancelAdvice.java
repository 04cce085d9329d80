package dev.retryafter.agent.instrument.apache5;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

/**
 * {@code HttpUriRequestBase.cancel()} (and {@code abort()}, which calls it): a request waiting for its turn stops waiting
 * once cancelled, and the client fails it as it would without the agent ({@code Request aborted}).
 */
public final class CancelAdvice {

    private CancelAdvice() {
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.This Object request) {
        AgentHooks.module("apache5.cancelled", new Object[] {request});
    }
}
