package dev.retryafter.agent;

import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.BlockingRetryLoop;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.JdkClientHooks;
import dev.retryafter.agent.instrument.RetryStrategyGuard;

import java.io.IOException;

/**
 * The agent's side of {@link AgentHooks}: casts back to the types the hooks could not name, and routes;
 * {@code java.net.http} through {@link JdkClientHooks}, which only Java 11 and later load.
 */
final class HookDispatcher implements AgentHooks.Dispatcher {

    /** Null before Java 11: no java.net.http there, and nothing of it is loaded. */
    private final JdkClientHooks jdk;
    private final BlockingRetryLoop loop;
    private final CallDepth depth;

    HookDispatcher(RetryEngine engine, CallDepth depth) {
        this.jdk = JdkClientHooks.create(engine, depth);
        this.loop = new BlockingRetryLoop(engine, depth);
        this.depth = depth;
    }

    @Override
    public Object jdkSend(Object client, Object request, Object bodyHandler) throws IOException, InterruptedException {
        return jdk == null ? null : jdk.send(client, request, bodyHandler);
    }

    @Override
    public Object jdkSendAsync(Object client, Object request, Object bodyHandler, Object pushPromiseHandler) {
        return jdk == null ? null : jdk.sendAsync(client, request, bodyHandler, pushPromiseHandler);
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
