package dev.retryafter.agent.instrument.jetty9to11;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

/**
 * Jetty 9.4, 10 and 11's {@code HttpRequest.send(Response.CompleteListener)}, where both {@code send()} (which blocks
 * on a listener of its own) and {@code send(listener)} go. A request whose turn has not come is not sent: the agent
 * sends it itself, on the client's executor, once it has. No Jetty type is named (Jetty 12 has the same class names
 * elsewhere, and this advice compiles against none of them); the agent reaches the request by reflection.
 */
public final class SendAdvice {

    private SendAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static boolean enter(@Advice.This Object request, @Advice.Argument(0) Object listener, @Advice.FieldValue("client") Object client) {
        return AgentHooks.module("jetty9to11.send", new Object[] {request, listener, client}) != null;
    }
}
