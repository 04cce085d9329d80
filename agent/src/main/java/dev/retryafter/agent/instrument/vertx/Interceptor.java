package dev.retryafter.agent.instrument.vertx;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.Endpoint;
import dev.retryafter.agent.instrument.HeaderEntries;
import dev.retryafter.agent.instrument.Proxies;
import dev.retryafter.agent.report.Turns;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;

/**
 * The agent's interceptor in a Vert.x {@code WebClient}'s chain, as the invocation handler of a {@code Handler<HttpContext>}
 * proxy. At {@code CREATE_REQUEST} (each attempt, before a connection is asked for) it takes the request's turn and holds
 * the phase back until the turn comes, resuming it on the request's Vert.x context; a held host fails the request there. At
 * {@code DISPATCH_RESPONSE} (the body read by Vert.x's codec, the application's handler not yet called) it decides: a
 * refusal it retries goes no further, and the same request is prepared again from its start ({@code prepareRequest}, with
 * the body as the application gave it, kept at {@code PREPARE_REQUEST}: a buffer is consumed by its send, so each send has
 * a copy); any other response goes on unchanged. Only a body Vert.x holds (a buffer, a string, JSON,
 * a form) is sent again, never a {@code ReadStream}. The governed request lives in the context's attributes, through
 * Vert.x's own redirects (each a new governed request) and the agent's retries.
 */
final class Interceptor implements InvocationHandler {

    private static final String GOVERNED = AgentHooks.GOVERNED_CALL;
    /** The body and content type as given, kept at {@code PREPARE_REQUEST}: what a retry sends. */
    private static final String BODY = AgentHooks.GOVERNED_CALL + ".body";

    private final RetryEngine engine;
    private final BooleanSupplier governs;
    private final VertxWebClients clients;

    Interceptor(RetryEngine engine, BooleanSupplier governs, VertxWebClients clients) {
        this.engine = engine;
        this.governs = governs;
        this.clients = clients;
    }

    /** One request through its attempts; a retry's {@code CREATE_REQUEST} is the same request's, a redirect's a new one's. */
    static final class Governed {
        final Call call;
        volatile boolean retrying;

        Governed(Call call) {
            this.call = call;
        }
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) {
        if (method.getDeclaringClass() == Object.class) {
            return Proxies.identity(proxy, method, args);
        }
        if (method.getName().equals("handle") && args != null && args.length == 1) {
            handle(args[0]);
        }
        return null;
    }

    private void handle(Object context) {
        VertxApi api;
        String phase;
        try {
            api = clients.api(context);
            phase = api.phase(context);
        } catch (Throwable t) {
            AgentLog.failure("reading a Vert.x request's phase", t);
            VertxApi.nextAnyway(context);
            return;
        }
        try {
            switch (phase) {
                case "PREPARE_REQUEST":
                    if (governs.getAsBoolean()) {
                        api.set(context, BODY, api.bodyAsGiven(context));
                    }
                    break;
                case "CREATE_REQUEST":
                    if (takeTurn(api, context)) {
                        return;
                    }
                    break;
                case "DISPATCH_RESPONSE":
                    if (retried(api, context)) {
                        return;
                    }
                    break;
                case "FAILURE":
                    Governed failed = governed(api, context);
                    if (failed != null) {
                        failed.call.endAttempt();
                    }
                    break;
                default:
                    break;
            }
        } catch (Throwable t) {
            AgentLog.failure("governing a Vert.x request", t);
        }
        api.next(context);
    }

    private static Governed governed(VertxApi api, Object context) throws ReflectiveOperationException {
        Object governed = api.get(context, GOVERNED);
        return governed instanceof Governed ? (Governed) governed : null;
    }

    /** True when the phase is held back until the turn comes (or the request fails there); false: it goes on now. */
    private boolean takeTurn(VertxApi api, Object context) throws ReflectiveOperationException {
        Governed governed = governed(api, context);
        if (governed != null && governed.retrying) {
            governed.retrying = false;
        } else {
            if (governed != null) {
                governed.call.endAttempt(); // Vert.x follows a redirect: the exchange before it is over
                api.set(context, GOVERNED, null);
            }
            if (!governs.getAsBoolean()) {
                return false;
            }
            Object options = api.requestOptions(context);
            String host = api.host(options);
            if (host == null) {
                return false;
            }
            Call call = engine.open(Endpoint.host(host), Endpoint.port(api.ssl(options) ? "https" : "http", api.port(options)),
                    api.replayable(context));
            governed = new Governed(call);
            api.set(context, GOVERNED, governed);
        }
        CompletableFuture<Void> turn = Turns.start(governed.call);
        if (turn.isDone() && !turn.isCompletedExceptionally()) {
            return false;
        }
        turn.whenComplete(new TurnCame(context));
        return true;
    }

    /**
     * The turn came, or the host is held: the phase resumes, or the request fails, on the request's Vert.x context, as
     * the {@code Handler} that runs there.
     */
    private final class TurnCame implements BiConsumer<Void, Throwable>, InvocationHandler {
        private final Object context;
        private volatile Throwable failure;

        TurnCame(Object context) {
            this.context = context;
        }

        @Override
        public void accept(Void granted, Throwable turnFailure) {
            VertxApi api = clients.api(context);
            failure = turnFailure instanceof CompletionException && turnFailure.getCause() != null ? turnFailure.getCause() : turnFailure;
            try {
                api.runOnContext(api.vertxContext(context), Proxy.newProxyInstance(api.loader, new Class<?>[] {api.handlerType}, this));
            } catch (Throwable t) {
                AgentLog.failure("resuming a Vert.x request on its context", t);
                resume();
            }
        }

        /** The {@code Handler}'s {@code handle}, on the request's context. */
        @Override
        public Object invoke(Object proxy, Method method, Object[] args) {
            if (method.getDeclaringClass() != Object.class) {
                resume();
                return null;
            }
            return Proxies.identity(proxy, method, args);
        }

        private void resume() {
            VertxApi api = clients.api(context);
            if (failure instanceof HostHeldException) {
                api.fail(context, failure);
                return;
            }
            if (failure != null) {
                AgentLog.failure("waiting for a Vert.x request's turn", failure);
            }
            api.next(context);
        }
    }

    /** True when the response is a refusal the agent retries: the request is created again, and this response goes no further. */
    private boolean retried(VertxApi api, Object context) throws ReflectiveOperationException {
        Governed governed = governed(api, context);
        if (governed == null) {
            return false;
        }
        Call call = governed.call;
        boolean retry;
        try {
            Object response = api.response(context);
            retry = HeaderEntries.decide(call, api.status(response), api.headers(response)); // Vert.x's MultiMap
        } finally {
            call.endAttempt(); // the body was read by Vert.x's codec: the exchange is over
        }
        if (!retry) {
            return false;
        }
        governed.retrying = true;
        try {
            Object given = api.get(context, BODY);
            if (given instanceof Object[]) {
                api.prepareAgain(context, (Object[]) given); // its buffer was consumed by the send: a copy of it, prepared anew
            } else {
                api.createRequest(context, api.requestOptions(context)); // no body kept: the same options, as Vert.x's OAuth2 interceptor does
            }
        } catch (Throwable t) {
            governed.retrying = false;
            api.set(context, GOVERNED, null);
            AgentLog.failure("sending a Vert.x request again", t);
            return false;
        }
        return true;
    }
}
