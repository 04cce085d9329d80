package dev.retryafter.agent.instrument.apache5;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

/**
 * HttpClient 5 classic {@code InternalExecRuntime.acquireEndpoint}, the holder of one exchange's pooled connection: only
 * once it returned, with a connection. A governed attempt keeps its permit until the holder gives it back
 * ({@link LeaseReleasedAdvice}), while the application reads the body. Inlined into the client: calls to the bootstrap only.
 */
public final class LeaseAcquiredAdvice {

    private LeaseAcquiredAdvice() {
    }

    @Advice.OnMethodExit
    static void exit(@Advice.This Object runtime) {
        AgentHooks.connectionAcquired(runtime);
    }
}
