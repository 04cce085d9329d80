package dev.retryafter.agent.instrument.urlconnection;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

/**
 * {@code sun.net.www.http.HttpClient.finished()} and {@code closeServer()}: the JDK's connection
 * went back to its keep-alive cache or was closed, so the exchange it served is over. The JDK calls
 * these when the body was read to its end or closed, when it buffered an error body, for an empty
 * body, and on disconnect.
 */
public final class ClientDoneAdvice {

    private ClientDoneAdvice() {
    }

    @Advice.OnMethodEnter
    static void enter(@Advice.This Object client) {
        AgentHooks.end("urlconnection", client);
    }
}
