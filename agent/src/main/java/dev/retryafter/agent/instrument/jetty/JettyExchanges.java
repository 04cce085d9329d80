package dev.retryafter.agent.instrument.jetty;

import dev.retryafter.agent.report.Turns;
import dev.retryafter.agent.AgentLog;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.Endpoint;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * Jetty 12's HttpClient, governed without a thread asleep. {@code send(listener)} takes its turn
 * ({@link Call#turn()}); a request whose turn has not come is sent by the agent, on the client's
 * executor, once it has. A governed refusal is taken at its status line by the agent's protocol handler, as
 * Jetty's redirects and authentication are: the application's listeners do not hear that exchange, its
 * body is read and dropped, and after the wait a copy of the request ({@code HttpRequest.copy}, in the same
 * conversation, so the application's listeners hear it) is sent; only a body held as bytes is sent again.
 * A refusal not retried (out of attempts, a body sent once, observe mode) is handed to the application's
 * listeners from its status line on, unchanged. An attempt's permit ends with its exchange.
 */
public final class JettyExchanges {

    /** The agent's own send of an attempt whose turn came; {@link #PASS}: send it ungoverned. */
    private final Map<Object, Object> granted = Collections.synchronizedMap(new WeakHashMap<Object, Object>());
    /** Each governed request sent, the agent's copies included, by request. */
    private final Map<Object, Governed> requests = Collections.synchronizedMap(new WeakHashMap<Object, Governed>());
    /** The governed call a conversation is on: a follow-up of Jetty's own (a redirect) ends the exchange before it. */
    private final Map<ClassLoader, JettyApi> apis = Collections.synchronizedMap(new WeakHashMap<ClassLoader, JettyApi>());
    private static final Object PASS = new Object();

    private final RetryEngine engine;

    public JettyExchanges(RetryEngine engine) {
        this.engine = engine;
    }

    /** One request as the application sent it, through its attempts. */
    private static final class Governed {
        final JettyApi api;
        final Call call;
        final Object original;
        final Executor executor;

        Governed(JettyApi api, Call call, Object original, Executor executor) {
            this.api = api;
            this.call = call;
            this.original = original;
            this.executor = executor;
        }
    }

    /** True when the agent sends the request itself once its turn has come, or has failed it (a held host). */
    public boolean send(Object request, Object listener, String scheme, String host, int port, boolean replayable,
                        Executor executor, boolean governNew) {
        Object own = request == null ? null : granted.remove(request);
        if (own != null || host == null || !governNew) {
            return false;
        }
        Governed governed;
        CompletableFuture<Void> turn;
        try {
            JettyApi api = api(request);
            Object conversation = api.conversation(request);
            Object before = api.conversationCall(conversation);
            if (before instanceof Call) {
                ((Call) before).endAttempt(); // Jetty's own follow-up: the exchange it follows is over
            }
            Call call = engine.open(Endpoint.host(host), Endpoint.port(scheme, port), replayable);
            governed = new Governed(api, call, request, executor);
            api.onComplete(request, api.proxy(api.completeListener, new Ended(call)));
            requests.put(request, governed);
            api.conversationCall(conversation, call);
            turn = Turns.start(call);
        } catch (Throwable t) {
            AgentLog.failure("governing a Jetty request", t);
            return false;
        }
        if (turn.isDone() && !turn.isCompletedExceptionally()) {
            return false; // its turn is now: Jetty sends it
        }
        turn.whenComplete((went, failure) -> run(governed, () -> {
            Throwable cause = unwrap(failure);
            if (cause instanceof HostHeldException) {
                governed.api.failUnsent(request, listener, cause);
                return;
            }
            if (cause != null) {
                AgentLog.failure("waiting for a Jetty request's turn", cause);
                requests.remove(request);
            }
            granted.put(request, cause == null ? governed : PASS);
            governed.api.send(request, listener);
        }));
        return true;
    }

    /** At a response's status line: the agent's protocol handler for a governed refusal, else null. */
    public Object refusal(Object request, Object response, int status) {
        Governed governed = request == null ? null : requests.get(request);
        if (governed == null) {
            return null;
        }
        try {
            if (!governed.call.answersRefusal(status)) {
                return null;
            }
            JettyApi api = governed.api;
            Object listener = api.proxy(api.responseListener, new RefusedExchange(governed, request));
            return api.proxy(api.protocolHandler, (proxy, method, args) -> {
                switch (method.getName()) {
                    case "getName": return "retry-after-agent";
                    case "accept": return Boolean.TRUE;
                    case "getResponseListener": return listener;
                    default: return objectMethod(proxy, method, args);
                }
            });
        } catch (Throwable t) {
            AgentLog.failure("taking a Jetty refusal", t);
            return null;
        }
    }

    /** Runs {@code step} on the client's executor, never on the agent's delay thread; its failure is the agent's own. */
    private static void run(Governed governed, Step step) {
        Runnable guarded = () -> {
            try {
                step.run();
            } catch (Throwable t) {
                AgentLog.failure("sending a governed Jetty request", t);
            }
        };
        try {
            if (governed.executor != null) {
                governed.executor.execute(guarded);
                return;
            }
        } catch (Throwable rejected) {
            // a stopping client: run it here
        }
        guarded.run();
    }

    private interface Step {
        void run() throws Exception;
    }

    private JettyApi api(Object request) throws ReflectiveOperationException {
        ClassLoader loader = request.getClass().getClassLoader();
        JettyApi api = apis.get(loader);
        if (api == null) {
            api = new JettyApi(loader);
            apis.put(loader, api);
        }
        return api;
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    static Object objectMethod(Object proxy, Method method, Object[] args) {
        switch (method.getName()) {
            case "equals": return proxy == args[0];
            case "hashCode": return System.identityHashCode(proxy);
            case "toString": return "retry-after-agent@" + Integer.toHexString(System.identityHashCode(proxy));
            default: return method.getReturnType() == boolean.class ? Boolean.TRUE : null;
        }
    }

    /** The exchange the application hears is over: its attempt's permit goes back. */
    private static final class Ended implements InvocationHandler {
        private final Call call;

        Ended(Call call) {
            this.call = call;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) {
            if (method.getName().equals("onComplete")) {
                try {
                    call.endAttempt();
                } catch (Throwable t) {
                    AgentLog.failure("ending a Jetty attempt", t);
                }
                return null;
            }
            return objectMethod(proxy, method, args);
        }
    }

    /**
     * The listener of a governed refusal's exchange, in place of the application's: decides at the
     * headers; a retry reads the body to its end and drops it, and sends a copy after the wait; else the
     * application's listeners get the exchange from its status line on.
     */
    private final class RefusedExchange implements InvocationHandler {
        private final Governed governed;
        private final Object request;
        private volatile Object handedTo;
        private volatile Object next;

        RefusedExchange(Governed governed, Object request) {
            this.governed = governed;
            this.request = request;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Exception {
            JettyApi api = governed.api;
            switch (method.getName()) {
                case "onHeaders":
                    decide(args[0]);
                    return null;
                case "onContentSource":
                    Object to = handedTo;
                    if (to != null) {
                        api.notifyContentSource(to, args[0], args[1]);
                        return null;
                    }
                    return api.invokeDefault(proxy, api.readSource, args); // Jetty's loop, into onContent below
                case "onContent":
                    return args.length == 3 ? api.invokeDefault(proxy, api.readChunk, args) : null; // dropped
                case "onHeader":
                    return Boolean.TRUE;
                case "onComplete":
                    if (handedTo == null) {
                        retry(args[0]);
                    }
                    return null;
                case "onBegin":
                case "onSuccess":
                case "onFailure":
                    return null;
                default:
                    return objectMethod(proxy, method, args);
            }
        }

        private void decide(Object response) {
            JettyApi api = governed.api;
            Call call = governed.call;
            boolean retry = false;
            try {
                int status = api.status(response);
                Object headers = api.headers(response);
                if (call.wantsHeaders(status)) {
                    for (Object field : (Iterable<?>) headers) {
                        call.offerHeader(api.name(field), api.value(field));
                    }
                }
                retry = call.onResponse(status, api.header(headers, "Retry-After"));
                if (retry && api.rewound(request)) {
                    next = api.copy(request);
                } else {
                    retry = false; // a body that cannot be read again from its start goes back with its refusal
                }
            } catch (Throwable t) {
                AgentLog.failure("deciding on a Jetty response", t);
                retry = false;
            }
            if (!retry) {
                handBack(response);
            }
        }

        /** The application's listeners hear this exchange as if the agent had not been asked: begin, headers, and on. */
        private void handBack(Object response) {
            JettyApi api = governed.api;
            try {
                Object listeners = api.applicationListeners(api.conversation(request));
                handedTo = listeners;
                api.notifyBegin(listeners, response);
                for (Object field : (Iterable<?>) api.headers(response)) {
                    api.notifyHeader(listeners, response, field);
                }
                api.notifyHeaders(listeners, response);
            } catch (Throwable t) {
                AgentLog.failure("handing a Jetty response back", t);
            }
        }

        /** The refused exchange is over: its permit goes back, and the copy goes when its turn comes. */
        private void retry(Object result) {
            Call call = governed.call;
            call.endAttempt();
            Object copy = next;
            JettyApi api = governed.api;
            Object response = responseOf(result);
            CompletableFuture<Void> turn;
            try {
                Throwable aborted = api.abortCause(governed.original);
                if (aborted != null) {
                    call.abandon();
                    api.failConversation(request, response, aborted);
                    return;
                }
                turn = Turns.start(call);
            } catch (Throwable t) {
                AgentLog.failure("retrying a Jetty request", t);
                turn = CompletableFuture.completedFuture(null);
                requests.remove(copy);
                granted.put(copy, PASS);
            }
            turn.whenComplete((went, failure) -> run(governed, () -> {
                Throwable cause = unwrap(failure);
                if (cause instanceof HostHeldException) {
                    api.failConversation(request, response, cause);
                    return;
                }
                if (cause != null) {
                    AgentLog.failure("waiting to retry a Jetty request", cause);
                    granted.put(copy, PASS);
                } else {
                    requests.put(copy, governed);
                    granted.putIfAbsent(copy, governed);
                }
                api.send(copy, null);
            }));
        }

        private Object responseOf(Object result) {
            try {
                return result.getClass().getMethod("getResponse").invoke(result);
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }
    }
}
