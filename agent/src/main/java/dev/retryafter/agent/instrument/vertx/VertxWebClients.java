package dev.retryafter.agent.instrument.vertx;

import dev.retryafter.agent.instrument.ClientHook;
import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.engine.RetryEngine;

import java.lang.reflect.Proxy;
import java.util.function.BooleanSupplier;

/**
 * Vert.x {@code WebClient} (4 and 5, on Netty), governed at its own interceptor chain: each client gets an interceptor
 * of the agent's ({@link Interceptor}), a proxy of Vert.x's {@code Handler}, first in its list. Vert.x runs every request
 * through the chain at each phase, and its interceptors may hold a phase back and resume it later, and send a request
 * again ({@code HttpContext.createRequest}, as its own OAuth2 interceptor does after a 401): the agent takes the turn at
 * {@code CREATE_REQUEST}, before a connection is asked for, and decides at {@code DISPATCH_RESPONSE}, before the
 * application's handler or future gets the response.
 */
public final class VertxWebClients extends ClientHook<VertxApi> {

    private final BooleanSupplier governs;

    /**
     * The hook {@code vertx.created}: a {@code WebClient} was made, its argument the client, the answer the agent's
     * interceptor for its chain. {@code governs}: whether a new request is governed (the agent may be switched off
     * while clients live on).
     */
    public VertxWebClients(RetryEngine engine, BooleanSupplier governs) {
        super("vertx.created", "a Vert.x HttpContext", engine, null); // its hook is no call: call is its own
        this.governs = governs;
    }

    /** Made whether or not new calls are governed now: the interceptor asks per request, as the client outlives a switch. */
    @Override
    public Object call(String hook, Object[] a, NewCalls newCalls) {
        return newCall(a);
    }

    @Override
    protected Object newCall(Object[] a) {
        return created(a[0]);
    }

    /** The agent's interceptor for a client just made, or null: it is then left as it is. */
    public Object created(Object client) {
        try {
            Class<?> handler = Class.forName("io.vertx.core.Handler", false, client.getClass().getClassLoader());
            return Proxy.newProxyInstance(handler.getClassLoader(), new Class<?>[] {handler}, new Interceptor(engine, governs, this));
        } catch (Throwable t) {
            AgentLog.failure("adding the agent's interceptor to a Vert.x WebClient", t);
            return null;
        }
    }

    /** Keyed by the class of a request's {@code HttpContext}: what the interceptor reaches is its. */
    @Override
    protected VertxApi shapeOf(Class<?> contextType) throws ReflectiveOperationException {
        return new VertxApi(contextType);
    }

    VertxApi api(Object context) {
        return shape(context.getClass());
    }
}
