package dev.retryafter.agent.instrument.apache4;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

/**
 * {@code AbstractExecutionAwareRequest.abort()} (HttpClient 4's request objects), often an application's watchdog for a
 * hard timeout: a request waiting for its turn stops waiting once aborted, and the client fails it as it would without
 * the agent ({@code RequestAbortedException}). Inlined into class files of version 50: calls only.
 */
public final class AbortAdvice {

    private AbortAdvice() {
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.This Object request) {
        AgentHooks.module("apache4.cancelled", new Object[] {request});
    }
}
