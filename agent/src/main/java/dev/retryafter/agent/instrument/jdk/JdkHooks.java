package dev.retryafter.agent.instrument.jdk;

import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.JdkClientHooks;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.PushPromiseHandler;

/** Casts back to the {@code java.net.http} types the hooks could not name, and routes. Java 11 and later. */
public final class JdkHooks implements JdkClientHooks {

    private final JdkSend send;
    private final JdkSendAsync sendAsync;

    public JdkHooks(RetryEngine engine, CallDepth depth) {
        this.send = new JdkSend(engine, depth);
        this.sendAsync = new JdkSendAsync(engine, depth);
    }

    @Override
    public Object send(Object client, Object request, Object bodyHandler) throws IOException, InterruptedException {
        return send.send((HttpClient) client, (HttpRequest) request, (BodyHandler<?>) bodyHandler);
    }

    @Override
    public Object sendAsync(Object client, Object request, Object bodyHandler, Object pushPromiseHandler) {
        return sendAsync.sendAsync((HttpClient) client, (HttpRequest) request, (BodyHandler<?>) bodyHandler,
                (PushPromiseHandler<?>) pushPromiseHandler);
    }
}
