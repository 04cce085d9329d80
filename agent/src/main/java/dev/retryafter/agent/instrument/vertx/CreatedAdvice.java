package dev.retryafter.agent.instrument.vertx;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

import java.util.List;

/**
 * Vert.x {@code WebClientBase(HttpClient, WebClientOptions)}, where every {@code WebClient.create} and {@code wrap} makes its
 * client (the session-aware, caching and OAuth2 clients copy its interceptors): the agent's interceptor goes first in its
 * list ({@code WebClientInternal.addInterceptor} would put it there too, but checks the list with a lambda of Vert.x's own).
 * Typed as {@code Object} and {@code List}: the agent's build needs no Vert.x.
 */
public final class CreatedAdvice {

    private CreatedAdvice() {
    }

    @Advice.OnMethodExit
    static void exit(@Advice.This Object client, @Advice.FieldValue("interceptors") List<Object> interceptors) {
        Object interceptor = AgentHooks.module("vertx.created", new Object[] {client});
        if (interceptor != null) {
            interceptors.add(0, interceptor);
        }
    }
}
