package dev.retryafter.agent.instrument.apache4;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

/**
 * HttpClient 4 {@code ConnectionHolder.releaseConnection(boolean)} and {@code abortConnection()}, where every way of
 * giving its connection back meets (released to the pool, closed or aborted): the permit {@link LeaseAcquiredAdvice}
 * kept goes back, even if releasing threw. Inlined into a class file of version 50: calls only.
 */
public final class LeaseReleasedAdvice {

    private LeaseReleasedAdvice() {
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.This Object holder) {
        AgentHooks.connectionReleased(holder);
    }
}
