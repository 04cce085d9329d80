package dev.retryafter.agent.instrument.jetty9to11;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

/**
 * {@code HttpRequest.abort(Throwable)}, the application's (often a watchdog's hard timeout) or Jetty's own: a request
 * waiting for its turn, or for the turn of the copy the agent sends after a refusal, stops waiting at once and fails
 * with the abort's cause (as Jetty kept it), as Jetty fails a request aborted in its queue. No Jetty type is named.
 */
public final class AbortAdvice {

    private AbortAdvice() {
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.This Object request) {
        AgentHooks.module("jetty9to11.aborted", new Object[] {request});
    }
}
