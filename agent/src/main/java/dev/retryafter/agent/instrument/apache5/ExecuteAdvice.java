package dev.retryafter.agent.instrument.apache5;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * HttpClient 5 classic {@code doExecute}, where every {@code execute} overload meets. A non-null
 * answer from the hook is the governed response: the agent ran its loop around this very method
 * ({@link Apache5Execute}), and the original body is skipped. A null one runs the body as it was:
 * the agent's own attempt, a call not governed, or the agent off.
 *
 * <p>Kept this small on purpose. HotSpot inlines a hot method of up to 325 bytes of bytecode into
 * its caller; {@code InternalHttpClient.doExecute} is 276, and the loop inlined here (Byte Buddy's
 * {@code repeatOn}, the response read in place) made it 581, so {@code execute} called it instead
 * of inlining it, on every request. Inlined into the client: the bootstrap {@link AgentHooks} only.
 */
public final class ExecuteAdvice {

    private ExecuteAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static Object enter(@Advice.This Object client, @Advice.Origin Class<?> declaring, @Advice.Argument(0) Object target,
                        @Advice.Argument(1) Object request, @Advice.Argument(2) Object context) throws Exception {
        return AgentHooks.apache5Execute(client, declaring, target, request, context);
    }

    @Advice.OnMethodExit(backupArguments = false)
    static void exit(@Advice.Enter Object governed,
                     @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object response) {
        if (governed != null) {
            response = governed;
        }
    }
}
