package dev.retryafter.agent;

import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.BlockingRetryLoop;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.ConnectionLeases;
import dev.retryafter.agent.instrument.RetryStrategyGuard;
import dev.retryafter.agent.instrument.jdk.JdkSend;
import dev.retryafter.agent.instrument.jdk.JdkSendAsync;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.PushPromiseHandler;

/**
 * The agent's side of {@link AgentHooks}: casts back to the types the hooks could not name, and routes.
 *
 * <p>The boundary for the Apache hooks: nothing of the application's runs beneath them, so any
 * Throwable that reaches here is the agent's own. It is logged once per hook, and the client goes on
 * as it would without the agent; only the agent's deliberate answers (an {@link IOException}: a held
 * host, an interrupted wait) pass. The {@code java.net.http} hooks run the application's body
 * handlers and the client itself beneath them, so their adapters keep their own, narrower boundary.
 */
final class HookDispatcher implements AgentHooks.Dispatcher {

    private final JdkSend send;
    private final JdkSendAsync sendAsync;
    private final BlockingRetryLoop loop;
    private final CallDepth depth;
    private final ConnectionLeases leases;

    HookDispatcher(RetryEngine engine, CallDepth depth) {
        this.send = new JdkSend(engine, depth);
        this.sendAsync = new JdkSendAsync(engine, depth);
        this.leases = new ConnectionLeases();
        this.loop = new BlockingRetryLoop(engine, depth, leases);
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
        try {
            return loop.begin(scheme, host, port, replayable);
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            AgentLog.failure("beginning an Apache call", t);
            depth.restore(null); // not governed: the advice does nothing more for this call
            return null;
        }
    }

    @Override
    public boolean shouldRetry(Object call, int status, String retryAfter) {
        try {
            return loop.shouldRetry((Call) call, status, retryAfter);
        } catch (Throwable t) {
            AgentLog.failure("answering an Apache response", t);
            return false;
        }
    }

    @Override
    public void awaitRetry(Object call) throws IOException {
        try {
            loop.awaitRetry((Call) call);
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            AgentLog.failure("awaiting an Apache retry", t);
        }
    }

    @Override
    public void failed(Object call) {
        try {
            loop.failed((Call) call);
        } catch (Throwable t) {
            AgentLog.failure("ending a failed Apache call", t);
        }
    }

    @Override
    public void discardRefused(InputStream body, String abortMethod) {
        try {
            loop.discardRefused(body, abortMethod);
        } catch (Throwable t) {
            AgentLog.failure("discarding a refused body", t);
        }
    }

    @Override
    public void connectionAcquired(Object holder) {
        try {
            leases.acquired(holder);
        } catch (Throwable t) {
            AgentLog.failure("counting a leased connection", t);
        }
    }

    @Override
    public void connectionReleased(Object holder) {
        try {
            leases.released(holder);
        } catch (Throwable t) {
            AgentLog.failure("counting a released connection", t);
        }
    }

    @Override
    public Object guardRetryStrategy(Object strategy, Class<?> strategyType) {
        try {
            return RetryStrategyGuard.guard(strategy, strategyType, depth);
        } catch (Throwable t) {
            AgentLog.failure("guarding a retry strategy", t);
            return strategy;
        }
    }
}
