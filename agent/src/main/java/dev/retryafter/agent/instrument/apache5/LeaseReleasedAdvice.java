package dev.retryafter.agent.instrument.apache5;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

/**
 * HttpClient 5 classic {@code InternalExecRuntime.releaseEndpoint} and both {@code discardEndpoint}s: the connection
 * goes back to the pool, or is discarded, and the permit {@link LeaseAcquiredAdvice} kept with it, even if releasing
 * threw. Inlined into the client: calls to the bootstrap only.
 */
public final class LeaseReleasedAdvice {

    private LeaseReleasedAdvice() {
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.This Object runtime) {
        AgentHooks.connectionReleased(runtime);
    }
}
