package dev.retryafter.agent.instrument.asynchttpclient;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * AsyncHttpClient's {@code DefaultAsyncHttpClient.execute(Request, AsyncHandler)}, the private method where every
 * {@code executeRequest} and {@code prepareXxx(url).execute()} meets once the client's cookies and request filters
 * have been applied: the agent answers with a {@code ListenableFuture} of its own and runs each attempt through this
 * same method once its turn has come ({@code AsyncHttpClientCalls}), or the method runs as it always did. Typed as
 * {@code Object}: the agent's build needs no AsyncHttpClient, and 2.x and 3.x share the method.
 */
public final class ExecuteAdvice {

    private ExecuteAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static Object enter(@Advice.This Object client, @Advice.Argument(0) Object request, @Advice.Argument(1) Object handler) {
        return AgentHooks.module("asynchttpclient.execute", new Object[] {client, request, handler});
    }

    @Advice.OnMethodExit
    static void exit(@Advice.Enter Object governed,
                     @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object future) {
        if (governed != null) {
            future = governed;
        }
    }
}
