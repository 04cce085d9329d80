package dev.retryafter.agent.instrument.urlconnection;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

/** {@code HttpURLConnection.disconnect()}: the exchange is over, answered or not. */
public final class DisconnectAdvice {

    private DisconnectAdvice() {
    }

    @Advice.OnMethodEnter
    static void enter(@Advice.This Object connection) {
        AgentHooks.end("urlconnection", connection);
    }
}
