package dev.retryafter.agent.instrument.jdk;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * {@code HttpClientFacade.sendAsync(HttpRequest, BodyHandler)} and {@code sendAsync(HttpRequest, BodyHandler,
 * PushPromiseHandler)}: the facade's two-argument form does not call its three-argument one, so both are advised, the
 * push promise handler null for the first. Inlined: java.base, java.net.http and {@link AgentHooks} only.
 */
public final class SendAsyncAdvice {

    private SendAsyncAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static Object enter(@Advice.This Object client, @Advice.Argument(0) Object request, @Advice.Argument(1) Object handler,
                        @Advice.Argument(value = 2, optional = true) Object pushPromises) {
        return AgentHooks.jdkSendAsync(client, request, handler, pushPromises);
    }

    @Advice.OnMethodExit
    static void exit(@Advice.Enter Object governed,
                     @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object future) {
        if (governed != null) {
            future = governed;
        }
    }
}
