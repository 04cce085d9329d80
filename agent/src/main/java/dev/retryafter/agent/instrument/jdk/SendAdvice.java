package dev.retryafter.agent.instrument.jdk;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * {@code HttpClientFacade.send(HttpRequest, BodyHandler)}. Inlined into the facade: it may only use
 * types that class can see, which is java.base, java.net.http and the bootstrap {@link AgentHooks}.
 * A non-null answer from the hook is the governed response, and the original body is skipped.
 */
public final class SendAdvice {

    private SendAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static Object enter(@Advice.This Object client, @Advice.Argument(0) Object request, @Advice.Argument(1) Object handler)
            throws Exception {
        return AgentHooks.jdkSend(client, request, handler);
    }

    @Advice.OnMethodExit
    static void exit(@Advice.Enter Object governed,
                     @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object response) {
        if (governed != null) {
            response = governed;
        }
    }
}
