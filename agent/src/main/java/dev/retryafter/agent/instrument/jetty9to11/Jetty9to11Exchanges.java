package dev.retryafter.agent.instrument.jetty9to11;

import dev.retryafter.agent.report.Turns;
import dev.retryafter.agent.AgentLog;
import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.Endpoint;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.LongConsumer;
import java.util.function.ObjLongConsumer;

/**
 * Jetty 9.4, 10 and 11's HttpClient, governed without a thread asleep, as Jetty 12's is ({@code JettyExchanges}):
 * {@code send(listener)} takes its turn ({@link Call#turn()}); a request whose turn has not come is sent by the agent,
 * on the client's executor, once it has. A governed refusal is taken at its status line by a response listener of the
 * agent's, put where Jetty puts a protocol handler's ({@code HttpConversation.updateResponseListeners}, asked at each
 * response's beginning): the application's listeners do not hear that exchange, its body is read and dropped, and after
 * the wait a copy of the request (Jetty's own {@code HttpClient.copyRequest}, in the same conversation, as its
 * redirects are, with the headers such a copy leaves out put back) is sent; only a body Jetty says it can produce again
 * ({@code isReproducible}) is sent again. A refusal not retried is handed to the application's listeners from its
 * status line on, unchanged, body included. An attempt's permit ends with its exchange.
 */
public final class Jetty9to11Exchanges {

    /** The agent's own send of an attempt whose turn came; {@link #PASS}: send it ungoverned. */
    private final Map<Object, Object> granted = Collections.synchronizedMap(new WeakHashMap<Object, Object>());
    /** Each governed request sent, the agent's copies included, by request. */
    private final Map<Object, Governed> requests = Collections.synchronizedMap(new WeakHashMap<Object, Governed>());
    /** The governed call a conversation is on: a follow-up of Jetty's own (a redirect) ends the exchange before it. */
    private final Map<Object, Call> conversations = Collections.synchronizedMap(new WeakHashMap<Object, Call>());
    private final Map<ClassLoader, Jetty9to11Api> apis = Collections.synchronizedMap(new WeakHashMap<ClassLoader, Jetty9to11Api>());
    private static final Object PASS = new Object();

    private final RetryEngine engine;

    public Jetty9to11Exchanges(RetryEngine engine) {
        this.engine = engine;
    }

    /** One request as the application sent it, through its attempts. */
    private static final class Governed {
        final Jetty9to11Api api;
        final Call call;
        final Object original;
        final Object client;
        final Executor executor;

        Governed(Jetty9to11Api api, Call call, Object original, Object client, Executor executor) {
            this.api = api;
            this.call = call;
            this.original = original;
            this.client = client;
            this.executor = executor;
        }
    }

    /** True when the agent sends the request itself once its turn has come, or has failed it (a held host). */
    public boolean send(Object request, Object listener, Object client, boolean governNew) {
        Object own = request == null ? null : granted.remove(request);
        if (own != null || client == null || !governNew) {
            return false;
        }
        Governed governed;
        CompletableFuture<Void> turn;
        try {
            Jetty9to11Api api = api(request);
            String host = api.host(request);
            if (host == null) {
                return false;
            }
            Object conversation = api.conversation(request);
            Call before = conversations.get(conversation);
            if (before != null) {
                before.endAttempt(); // Jetty's own follow-up: the exchange it follows is over
            }
            String scheme = api.scheme(request);
            Call call = engine.open(Endpoint.host(host), Endpoint.port(scheme, api.port(request)), api.reproducible(request));
            governed = new Governed(api, call, request, client, api.executor(client));
            api.onComplete(request, api.proxy(api.completeListener, new Ended(call)));
            requests.put(request, governed);
            conversations.put(conversation, call);
            turn = Turns.start(call);
        } catch (Throwable t) {
            AgentLog.failure("governing a Jetty 9.4-11 request", t);
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
                AgentLog.failure("waiting for a Jetty 9.4-11 request's turn", cause);
                requests.remove(request);
            }
            granted.put(request, cause == null ? governed : PASS);
            governed.api.send(request, listener);
        }));
        return true;
    }

    /**
     * At a response's beginning, no protocol handler of Jetty's taking it ({@code updateResponseListeners(null)}): the
     * agent's listener for a governed refusal, else null. Jetty asks the same with no listener elsewhere (a new exchange,
     * its own handlers handing a response back once its headers are in): only a response with a status and no header
     * yet is at its beginning.
     */
    public Object refusal(Object conversation) {
        if (conversation == null || conversations.get(conversation) == null) {
            return null; // no governed request in it: every ungoverned response's path
        }
        try {
            Jetty9to11Api api = api(conversation);
            Object[] exchange = api.lastExchange(conversation);
            if (exchange == null || exchange[1] == null) {
                return null;
            }
            Object request = exchange[0];
            Object response = exchange[1];
            Governed governed = requests.get(request);
            if (governed == null) {
                return null;
            }
            int status = api.status(response);
            if (status < AgentHooks.LOWEST_REFUSAL || api.headerCount(response) != 0 || !governed.call.answersRefusal(status)
                    || api.expectsContinue(request)) {
                return null; // a request that expects 100-continue is Jetty's ContinueProtocolHandler's, as in Jetty 12
            }
            return api.proxy(api.listenerType, new RefusedExchange(governed, request));
        } catch (Throwable t) {
            AgentLog.failure("taking a Jetty 9.4-11 refusal", t);
            return null;
        }
    }

    /** Runs {@code step} on the client's executor, never on the agent's delay thread; its failure is the agent's own. */
    private static void run(Governed governed, Step step) {
        Runnable guarded = () -> {
            try {
                step.run();
            } catch (Throwable t) {
                AgentLog.failure("sending a governed Jetty 9.4-11 request", t);
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

    private Jetty9to11Api api(Object jettyObject) throws ReflectiveOperationException {
        ClassLoader loader = jettyObject.getClass().getClassLoader();
        Jetty9to11Api api = apis.get(loader);
        if (api == null) {
            api = new Jetty9to11Api(loader);
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
                    AgentLog.failure("ending a Jetty 9.4-11 attempt", t);
                }
                return null;
            }
            return objectMethod(proxy, method, args);
        }
    }

    /**
     * Demand from the application's content listeners, passed on as Jetty's receiver does: from one, as it comes; from
     * several, the least they have all asked for.
     */
    private static final class Demand implements ObjLongConsumer<Object> {
        private final int listeners;
        private final Map<Object, Long> demands = new HashMap<>();
        private volatile LongConsumer upstream;

        Demand(int listeners) {
            this.listeners = listeners;
        }

        Demand from(LongConsumer next) {
            upstream = next;
            return this;
        }

        @Override
        public void accept(Object listener, long value) {
            long pass;
            if (listeners <= 1) {
                pass = value;
            } else {
                synchronized (this) {
                    Long before = demands.get(listener);
                    demands.put(listener, before == null ? value : before + value);
                    if (demands.size() < listeners) {
                        return;
                    }
                    pass = Long.MAX_VALUE;
                    for (Long each : demands.values()) {
                        pass = Math.min(pass, each);
                    }
                    for (Iterator<Map.Entry<Object, Long>> i = demands.entrySet().iterator(); i.hasNext(); ) {
                        Map.Entry<Object, Long> each = i.next();
                        if (each.getValue() - pass <= 0) {
                            i.remove();
                        } else {
                            each.setValue(each.getValue() - pass);
                        }
                    }
                }
            }
            upstream.accept(pass);
        }
    }

    /**
     * The listener of a governed refusal's exchange, in place of the application's: decides at the headers; a retry
     * reads the body to its end and drops it, and sends a copy after the wait; else the application's listeners get the
     * exchange from its status line on, its content passed to them as it comes.
     */
    private final class RefusedExchange implements InvocationHandler {
        private final Governed governed;
        private final Object request;
        private volatile List<?> handedTo;
        private volatile List<Object> handedContent;
        private volatile Demand demand;
        private volatile Object next;

        RefusedExchange(Governed governed, Object request) {
            this.governed = governed;
            this.request = request;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Exception {
            Jetty9to11Api api = governed.api;
            switch (method.getName()) {
                case "onHeaders":
                    decide(args[0]);
                    return null;
                case "onBeforeContent":
                    if (handedTo != null) {
                        if (handedContent.isEmpty()) {
                            ((LongConsumer) args[1]).accept(1);
                        } else {
                            api.notifyBeforeContent(args[0], demand.from((LongConsumer) args[1]), handedContent);
                        }
                    } else {
                        ((LongConsumer) args[1]).accept(1);
                    }
                    return null;
                case "onContent":
                    if (args.length == 4) { // (response, demand, buffer, callback): what Jetty's receiver calls
                        if (handedTo != null) {
                            api.notifyContent(args[0], demand.from((LongConsumer) args[1]), (ByteBuffer) args[2], args[3], handedContent);
                        } else {
                            ByteBuffer dropped = (ByteBuffer) args[2];
                            dropped.position(dropped.limit());
                            api.succeeded(args[3]);
                            ((LongConsumer) args[1]).accept(1);
                        }
                    } else if (args.length == 3) {
                        ByteBuffer dropped = (ByteBuffer) args[1];
                        dropped.position(dropped.limit());
                        api.succeeded(args[2]);
                    }
                    return null;
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
            Jetty9to11Api api = governed.api;
            Call call = governed.call;
            boolean retry;
            try {
                int status = api.status(response);
                Object headers = api.headers(response);
                if (call.wantsHeaders(status)) {
                    for (Object field : (Iterable<?>) headers) {
                        call.offerHeader(api.name(field), api.value(field));
                    }
                }
                retry = call.onResponse(status, api.header(headers, "Retry-After"));
                if (retry && api.reproducible(request)) {
                    next = api.copy(governed.client, request);
                } else {
                    retry = false; // a body that cannot be produced again goes back with its refusal
                }
            } catch (Throwable t) {
                AgentLog.failure("deciding on a Jetty 9.4-11 response", t);
                retry = false;
            }
            if (!retry) {
                handBack(response);
            }
        }

        /** The application's listeners hear this exchange as if the agent had not been asked: begin, headers, and on. */
        private void handBack(Object response) {
            Jetty9to11Api api = governed.api;
            try {
                List<?> listeners = api.applicationListeners(api.conversation(request));
                handedContent = api.contentListeners(listeners);
                demand = new Demand(handedContent.size());
                handedTo = listeners;
                api.notifyBegin(listeners, response);
                for (Object field : (Iterable<?>) api.headers(response)) {
                    api.notifyHeader(listeners, response, field);
                }
                api.notifyHeaders(listeners, response);
            } catch (Throwable t) {
                AgentLog.failure("handing a Jetty 9.4-11 response back", t);
            }
        }

        /** The refused exchange is over: its permit goes back, and the copy goes when its turn comes. */
        private void retry(Object result) {
            Call call = governed.call;
            call.endAttempt();
            Object copy = next;
            Jetty9to11Api api = governed.api;
            Object response = null;
            CompletableFuture<Void> turn;
            try {
                response = api.responseOf(result);
                if (copy == null) { // the exchange failed before its headers were in: nothing was decided, its failure is the outcome
                    Throwable failed = api.failureOf(result);
                    api.failConversation(request, response, failed != null ? failed : new java.io.IOException("the refused exchange failed"));
                    return;
                }
                Throwable aborted = api.abortCause(governed.original);
                if (aborted != null) {
                    call.abandon();
                    api.failConversation(request, response, aborted);
                    return;
                }
                turn = Turns.start(call);
            } catch (Throwable t) {
                AgentLog.failure("retrying a Jetty 9.4-11 request", t);
                turn = CompletableFuture.completedFuture(null);
                requests.remove(copy);
                granted.put(copy, PASS);
            }
            Object refused = response;
            turn.whenComplete((went, failure) -> run(governed, () -> {
                Throwable cause = unwrap(failure);
                if (cause instanceof HostHeldException) {
                    api.failConversation(request, refused, cause);
                    return;
                }
                if (cause != null) {
                    AgentLog.failure("waiting to retry a Jetty 9.4-11 request", cause);
                    granted.put(copy, PASS);
                } else {
                    requests.put(copy, governed);
                    granted.putIfAbsent(copy, governed);
                }
                api.send(copy, null);
            }));
        }
    }
}
