package dev.retryafter.agent.instrument.reactornetty;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * Reactor Netty's {@code HttpClientConnect.connect()}: the {@code Mono} each subscription of which sends the request
 * once, with the client's own redirects and connection-reset retry inside, and emits the response at its headers. The
 * agent answers a {@code Mono} of its own that subscribes to it once per attempt, each once its turn has come
 * ({@code ReactorNettyCalls}), or the client's goes back as it is. Typed as {@code Object}: the agent's build needs no
 * Reactor.
 */
public final class ConnectAdvice {

    private ConnectAdvice() {
    }

    @Advice.OnMethodExit
    static void exit(@Advice.This Object client,
                     @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object mono) {
        if (mono != null) {
            Object governed = AgentHooks.module("reactornetty.connect", new Object[] {client, mono});
            if (governed != null) {
                mono = governed;
            }
        }
    }
}
