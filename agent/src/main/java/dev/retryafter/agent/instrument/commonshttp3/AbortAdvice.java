package dev.retryafter.agent.instrument.commonshttp3;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

/**
 * {@code HttpMethodBase.abort()}: a method waiting for its turn stops waiting once aborted, and fails as an aborted
 * method does (the agent's own abort of a refused body closes the connection instead, and is not heard here).
 */
public final class AbortAdvice {

    private AbortAdvice() {
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.This Object method) {
        AgentHooks.module("commonshttp3.cancelled", new Object[] {method});
    }
}
