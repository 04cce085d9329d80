package dev.retryafter.agent.instrument.jetty;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.transport.HttpRequest;

/**
 * Jetty 12's {@code HttpRequest.send(Response.CompleteListener)}, where both {@code send()} (which
 * blocks on a listener of its own) and {@code send(listener)} go. A request whose turn has not come
 * is not sent: the agent sends it itself, on the client's executor, once it has. Relocated in a fat jar too: the
 * agent reads the copy's types as relocated alike. Only a body Jetty
 * holds as bytes ({@code BytesRequestContent}, {@code StringRequestContent}, forms) can be sent again.
 */
public final class SendAdvice {

    private SendAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static boolean enter(@Advice.This HttpRequest request, @Advice.Argument(0) Response.CompleteListener listener,
                         @Advice.FieldValue("client") HttpClient client) {
        Request.Content body = request.getBody();
        return AgentHooks.module("jetty.send", new Object[] {request, listener, request.getScheme(), request.getHost(), request.getPort(),
            body == null || body instanceof BytesRequestContent, client}) != null;
    }
}
