package dev.retryafter.agent.instrument.okhttp2;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

/**
 * {@code disconnect()} of OkHttp 2's {@code OkUrlFactory} connection: a connection waiting to send again stops waiting,
 * and fails as disconnected instead of sending ({@link OkUrlFactoryConnections}).
 */
public final class DisconnectAdvice {

    private DisconnectAdvice() {
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.This Object connection) {
        AgentHooks.module("okhttp2.disconnect", new Object[] {connection});
    }
}
