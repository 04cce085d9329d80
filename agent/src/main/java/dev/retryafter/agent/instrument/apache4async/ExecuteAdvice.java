package dev.retryafter.agent.instrument.apache4async;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * HttpAsyncClient 4.1's {@code execute(producer, consumer, context, callback)} of {@code InternalHttpAsyncClient} and
 * {@code MinimalHttpAsyncClient}, where every {@code execute} overload meets: the agent answers with a future of its own
 * and runs the exchange itself ({@code Apache4AsyncCalls}), or the method runs as it always did. Inlined into class
 * files of version 50, and naming no client type (nothing of the client's is needed to compile it): calls only.
 */
public final class ExecuteAdvice {

    private ExecuteAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static Object enter(@Advice.This Object client, @Advice.Argument(0) Object producer, @Advice.Argument(1) Object consumer,
                        @Advice.Argument(2) Object context, @Advice.Argument(3) Object callback) {
        return AgentHooks.module("apache4async.execute", new Object[] {client, producer, consumer, context, callback});
    }

    @Advice.OnMethodExit
    static void exit(@Advice.Enter Object governed,
                     @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object future) {
        if (governed != null) {
            future = governed;
        }
    }
}
