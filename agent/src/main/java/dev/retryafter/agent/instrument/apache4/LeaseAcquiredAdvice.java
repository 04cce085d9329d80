package dev.retryafter.agent.instrument.apache4;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

/**
 * HttpClient 4 {@code ConnectionHolder}'s constructor: made for each exchange with the connection it leased, on the
 * thread sending the request. A governed attempt keeps its permit until the holder gives the connection back
 * ({@link LeaseReleasedAdvice}), while the application reads the body. Inlined into a class file of version 50: calls only.
 */
public final class LeaseAcquiredAdvice {

    private LeaseAcquiredAdvice() {
    }

    @Advice.OnMethodExit
    static void exit(@Advice.This Object holder) {
        AgentHooks.connectionAcquired(holder);
    }
}
