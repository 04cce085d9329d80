package dev.retryafter.agent.instrument.apache5async;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * HttpAsyncClient 5's {@code doExecute(target, producer, consumer, pushHandlerFactory, context, callback)}, where every
 * {@code execute} overload meets ({@code InternalAbstractHttpAsyncClient}'s, HTTP/1.1 and H2, and the minimal clients'):
 * the agent answers with a future of its own and runs the exchange itself ({@code Apache5AsyncCalls}, which also gives a
 * call without a context one, as the client would), or the method runs as it always did. Calls to the bootstrap only.
 */
public final class ExecuteAdvice {

    private ExecuteAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static Object enter(@Advice.This Object client, @Advice.Argument(0) Object target, @Advice.Argument(1) Object producer,
                        @Advice.Argument(2) Object consumer, @Advice.Argument(3) Object pushHandlerFactory,
                        @Advice.Argument(4) Object context, @Advice.Argument(5) Object callback) {
        return AgentHooks.module("apache5async.execute", new Object[] {client, target, producer, consumer, pushHandlerFactory, context, callback});
    }

    @Advice.OnMethodExit
    static void exit(@Advice.Enter Object governed,
                     @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object future) {
        if (governed != null) {
            future = governed;
        }
    }
}
