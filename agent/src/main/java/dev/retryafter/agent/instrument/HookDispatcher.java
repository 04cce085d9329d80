package dev.retryafter.agent.instrument;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.GoverningSwitch;
import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.apache4async.Apache4AsyncCalls;
import dev.retryafter.agent.instrument.apache5async.Apache5AsyncCalls;
import dev.retryafter.agent.instrument.asynchttpclient.AsyncHttpClientCalls;
import dev.retryafter.agent.instrument.commonshttp3.RefusedMethodBody;
import dev.retryafter.agent.instrument.vertx.VertxWebClients;
import dev.retryafter.agent.instrument.reactornetty.ReactorNettyCalls;
import dev.retryafter.agent.instrument.jetty.Jetty12Exchanges;
import dev.retryafter.agent.instrument.jetty.JettyExchanges;
import dev.retryafter.agent.instrument.jetty9to11.Jetty9to11Exchanges;
import dev.retryafter.agent.instrument.okhttp.OkHttpCalls;
import dev.retryafter.agent.instrument.urlconnection.UrlConnectionExchanges;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The agent's side of {@link AgentHooks}: casts back to the types the hooks could not name, and routes;
 * {@code java.net.http} through {@link JdkClientHooks}, which only Java 11 and later load.
 *
 * <p>The boundary for the Apache hooks: nothing of the application's runs beneath them, so any
 * Throwable that reaches here is the agent's own. It is logged once per hook, and the client goes on
 * as it would without the agent; only the agent's deliberate answers (an {@link IOException}: a held
 * host, an interrupted wait) pass. The {@code java.net.http}, {@code HttpURLConnection} and OkHttp hooks
 * run the application's code or the client itself beneath them, so their adapters keep their own,
 * narrower boundary.
 */
public final class HookDispatcher implements AgentHooks.Dispatcher, ModuleHooks.NewCalls {

    /** Null before Java 11: no java.net.http there, and nothing of it is loaded. */
    private final JdkClientHooks jdk;
    private final BlockingRetryLoop loop;
    private final CallDepth depth;
    private final ConnectionLeases leases;
    private final UrlConnectionExchanges urlConnections;
    private final OkHttpCalls okhttp;
    /** The modules' own hooks, by name ({@link ModuleHooks}). */
    private final Map<String, ModuleHooks> moduleHooks = new HashMap<>();
    private final GoverningSwitch governing;
    private final Runnable firstUse;
    private final SelfGuardedStrategies selfGuarded;

    HookDispatcher(RetryEngine engine, CallDepth depth) {
        this(engine, depth, new GoverningSwitch(), new SelfGuardedStrategies(), () -> { });
    }

    /**
     * {@code governing} off: each new call gets the hooks' "not governed" answer. {@code firstUse} runs
     * at each governed call's start; it must be cheap after its first run, and never throw.
     */
    public HookDispatcher(RetryEngine engine, CallDepth depth, GoverningSwitch governing, SelfGuardedStrategies selfGuarded,
                   Runnable firstUse) {
        this.governing = governing;
        this.selfGuarded = selfGuarded;
        this.firstUse = firstUse;
        this.jdk = JdkClientHooks.create(engine, depth);
        this.leases = new ConnectionLeases();
        this.loop = new BlockingRetryLoop(engine, depth, leases);
        this.depth = depth;
        this.urlConnections = new UrlConnectionExchanges(engine, depth);
        this.okhttp = new OkHttpCalls(engine, depth, loop);
        JettyExchanges jettyCore = new JettyExchanges(engine);
        // The modules whose advice reaches them through AgentHooks.module: a module with hooks of its own adds itself here.
        for (ModuleHooks hooks : new ModuleHooks[] {
            okhttp,
            new Jetty12Exchanges(jettyCore),
            new Jetty9to11Exchanges(jettyCore),
            new Apache5AsyncCalls(engine, depth),
            new Apache4AsyncCalls(engine, depth),
            new AsyncHttpClientCalls(engine, depth),
            new VertxWebClients(engine, new GovernsNew()),
            new ReactorNettyCalls(engine, new GovernsNew()),
        }) {
            for (String hook : hooks.hooks()) {
                moduleHooks.put(hook, hooks);
            }
        }
    }

    @Override
    public Object jdkSend(Object client, Object request, Object bodyHandler) throws IOException, InterruptedException {
        if (jdk == null || !governs()) {
            return null;
        }
        return jdk.send(client, request, bodyHandler);
    }

    @Override
    public Object jdkSendAsync(Object client, Object request, Object bodyHandler, Object pushPromiseHandler) {
        if (jdk == null || !governs()) {
            return null;
        }
        return jdk.sendAsync(client, request, bodyHandler, pushPromiseHandler);
    }

    @Override
    public Object begin(String scheme, String host, int port, boolean replayable) throws IOException {
        if (!governs()) {
            return null;
        }
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
    public boolean wantsHeaders(Object call, int status) {
        try {
            return ((Call) call).wantsHeaders(status);
        } catch (Throwable t) {
            AgentLog.failure("asking for a response's headers", t);
            return false; // the response is decided on its status and Retry-After alone
        }
    }

    @Override
    public void header(Object call, String name, String value) {
        try {
            ((Call) call).offerHeader(name, value);
        } catch (Throwable t) {
            AgentLog.failure("reading a response's rate-limit headers", t);
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
    public void resend(Object call, Closeable refused, InputStream body, String abortMethod) throws IOException {
        try {
            loop.discardRefused(body, abortMethod);
        } catch (Throwable t) {
            AgentLog.failure("discarding a refused body", t);
        }
        if (refused != null) {
            try {
                refused.close(); // the client's own code: only what it throws when it fails is dropped, as the advice did
            } catch (IOException | RuntimeException dropped) {
                // The connection is dropped instead of reused; the retry opens another.
            }
        }
        awaitRetry(call);
    }

    @Override
    public void commonsHttp3DiscardRefused(Object method, InputStream body) {
        try {
            RefusedMethodBody.discard(method, body);
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
            return selfGuarded.covers(strategy.getClass()) ? strategy : RetryStrategyGuard.guard(strategy, strategyType, depth);
        } catch (Throwable t) {
            AgentLog.failure("guarding a retry strategy", t);
            return strategy;
        }
    }

    @Override
    public void urlConnectionConnect(Object connection, URL url, boolean replayable) throws IOException {
        if (!governs()) {
            return; // not bound to an exchange: the JDK's loop runs it alone, to the end
        }
        urlConnections.connect(connection, url, replayable);
    }

    @Override
    public boolean urlConnectionRefused(Object connection, Object httpClient, InputStream body, URL url, int status, String retryAfter) {
        return urlConnections.refused(connection, httpClient, body, url, status, retryAfter);
    }

    @Override
    public void urlConnectionRedirected(Object connection, URL url) throws IOException {
        urlConnections.redirected(connection, url);
    }

    @Override
    public void urlConnectionAwaitRetry(Object connection) throws IOException {
        urlConnections.awaitRetry(connection);
    }

    @Override
    public void urlConnectionDone(Object connectionOrClient) {
        urlConnections.done(connectionOrClient);
    }

    @Override
    public Object okhttpBegin(Object okCall, String scheme, String host, int port, boolean replayable) throws IOException {
        // Off, an enqueued call that already has its turn still takes it: it holds a permit.
        return okhttp.begin(okCall, scheme, host, port, replayable, governs());
    }

    /**
     * The one error boundary of the modules' own hooks: any Throwable of the agent's is logged once per hook, and the
     * client's own method runs as it always did.
     */
    @Override
    public Object module(String hook, Object[] args) {
        ModuleHooks hooks = moduleHooks.get(hook);
        if (hooks == null) {
            return null;
        }
        try {
            return hooks.call(hook, args, this);
        } catch (Throwable t) {
            AgentLog.failure("running the hook " + hook, t);
            return null;
        }
    }

    @Override
    public boolean governed() {
        return governs();
    }

    /** Whether a new call is governed; if so, the first such call starts what waits for the application's first use. */
    private boolean governs() {
        if (!governing.isOn()) {
            return false;
        }
        try {
            firstUse.run();
        } catch (Throwable t) {
            AgentLog.failure("starting the MBeans", t);
        }
        return true;
    }

    @Override
    public boolean isGovernedRefusal(int status) {
        try {
            Call call = depth.current();
            return call != null && call.answersRefusal(status);
        } catch (Throwable t) {
            AgentLog.failure("reading a status for a retry strategy", t);
            return false; // the client's own retry decides, as without the agent
        }
    }

    @Override
    public boolean isGovernedRefusal(int status, Object asyncCall) {
        try {
            Call call = depth.current();
            if (call == null && asyncCall instanceof Call) {
                call = (Call) asyncCall;
            }
            return call != null && call.answersRefusal(status);
        } catch (Throwable t) {
            AgentLog.failure("reading a status for a retry strategy", t);
            return false;
        }
    }

    /** Whether a new request is governed, for adapters whose clients outlive a switch: a class, not a lambda (start-up path). */
    private final class GovernsNew implements BooleanSupplier {
        @Override
        public boolean getAsBoolean() {
            return governs();
        }
    }
}
