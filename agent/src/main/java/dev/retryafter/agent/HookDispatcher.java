package dev.retryafter.agent;

import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.BlockingRetryLoop;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.RetryStrategyGuard;
import dev.retryafter.agent.instrument.jdk.JdkSend;
import dev.retryafter.agent.instrument.jdk.JdkSendAsync;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.PushPromiseHandler;

/** The agent's side of {@link AgentHooks}: casts back to the types the hooks could not name, and routes. */
final class HookDispatcher implements AgentHooks.Dispatcher {

    private final JdkSend send;
    private final JdkSendAsync sendAsync;
    private final BlockingRetryLoop loop;
    private final CallDepth depth;

    HookDispatcher(RetryEngine engine, CallDepth depth) {
        this.send = new JdkSend(engine, depth);
        this.sendAsync = new JdkSendAsync(engine, depth);
        this.loop = new BlockingRetryLoop(engine, depth);
        this.depth = depth;
    }

    @Override
    public Object jdkSend(Object client, Object request, Object bodyHandler) throws IOException, InterruptedException {
        return send.send((HttpClient) client, (HttpRequest) request, (BodyHandler<?>) bodyHandler);
    }

    @Override
    public Object jdkSendAsync(Object client, Object request, Object bodyHandler, Object pushPromiseHandler) {
        return sendAsync.sendAsync((HttpClient) client, (HttpRequest) request, (BodyHandler<?>) bodyHandler,
                (PushPromiseHandler<?>) pushPromiseHandler);
    }

    @Override
    public Object begin(String scheme, String host, int port, boolean replayable) throws IOException {
        return loop.begin(scheme, host, port, replayable);
    }

    @Override
    public boolean shouldRetry(Object call, int status, String retryAfter) {
        return loop.shouldRetry((Call) call, status, retryAfter);
    }

    @Override
    public void awaitRetry(Object call) throws IOException {
        loop.awaitRetry((Call) call);
    }

    @Override
    public void failed(Object call) {
        loop.failed((Call) call);
    }

    @Override
    public Object guardRetryStrategy(Object strategy, Class<?> strategyType) {
        try {
            return RetryStrategyGuard.guard(strategy, strategyType, depth);
        } catch (RuntimeException e) {
            AgentLog.failure("guarding a retry strategy", e);
            return strategy;
        }
    }
}
