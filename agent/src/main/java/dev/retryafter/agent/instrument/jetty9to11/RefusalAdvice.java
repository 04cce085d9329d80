package dev.retryafter.agent.instrument.jetty9to11;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * Jetty 9.4, 10 and 11's {@code HttpConversation.updateResponseListeners(overrideListener)}, which Jetty calls at each
 * response's beginning with the listener of the protocol handler that took it (redirects, authentication), or null.
 * With none, a governed refusal gets the agent's listener instead, as if a handler of the agent's had taken it: the
 * same place Jetty 12's advice reaches through {@code findProtocolHandler}, whose class name 9.4-11 share with 12.
 */
public final class RefusalAdvice {

    private RefusalAdvice() {
    }

    @Advice.OnMethodEnter
    static void enter(@Advice.This Object conversation,
                      @Advice.Argument(value = 0, readOnly = false, typing = Assigner.Typing.DYNAMIC) Object overrideListener) {
        if (overrideListener == null) {
            Object agents = AgentHooks.module("jetty9to11.refusal", new Object[] {conversation});
            if (agents != null) {
                overrideListener = agents;
            }
        }
    }
}
