package dev.retryafter.agent.instrument.apache4async;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * HttpAsyncClient 4.1's {@code execute(producer, consumer, context, callback)} of {@code InternalHttpAsyncClient} and
 * {@code MinimalHttpAsyncClient}, where every {@code CloseableHttpAsyncClient.execute} overload meets: the agent answers
 * with a future of its own and runs the exchange itself ({@code Apache4AsyncCalls}), or the method runs as it always
 * did. Inlined into class files of version 50: no lambdas, no string concatenation, calls to the bootstrap
 * {@link AgentHooks} only, and no client type named, so nothing of the client's is needed to compile it.
 */
public final class ExecuteAdvice {

    private ExecuteAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static Object enter(@Advice.This Object client, @Advice.Argument(0) Object producer, @Advice.Argument(1) Object consumer,
                        @Advice.Argument(2) Object context, @Advice.Argument(3) Object callback) {
        if (producer == null || consumer == null) {
            return null; // the client's to fail
        }
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
