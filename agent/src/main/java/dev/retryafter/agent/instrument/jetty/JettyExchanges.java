package dev.retryafter.agent.instrument.jetty;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.Endpoint;
import dev.retryafter.agent.report.Turns;

import java.lang.ref.WeakReference;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/**
 * Jetty's HttpClient, governed without a thread asleep: the core both APIs share (Jetty 12's, {@link Jetty12Exchanges},
 * and 9.4-11's, {@code jetty9to11.Jetty9to11Exchanges}), each reached through its {@link JettyApi}. {@code send(listener)}
 * takes its turn ({@link Call#turn()}); a request whose turn has not come is sent by the agent, on the client's
 * executor, once it has. A governed refusal is taken at its status line by a listener of the agent's, put where Jetty
 * puts a protocol handler's (as its redirects and authentication are): the application's listeners do not hear that
 * exchange, its body is read and dropped, and after the wait a copy of the request, in the same conversation so the
 * application's listeners hear it, is sent; only a body that can be read again from its start is sent again. A refusal
 * not retried (out of attempts, a body sent once, observe mode) is handed to the application's listeners from its status
 * line on, unchanged. An attempt's permit ends with its exchange.
 */
public final class JettyExchanges {

    /** The agent's own send of an attempt whose turn came; {@link #PASS}: send it ungoverned. */
    private final Map<Object, Object> granted = Collections.synchronizedMap(new WeakHashMap<Object, Object>());
    /** Each governed request sent, the agent's copies included, by request. */
    private final Map<Object, Governed> requests = Collections.synchronizedMap(new WeakHashMap<Object, Governed>());
    private static final Object PASS = new Object();

    private final RetryEngine engine;

    public JettyExchanges(RetryEngine engine) {
        this.engine = engine;
    }

    /**
     * One request as the application sent it, or as Jetty followed it up (a redirect), through its attempts. The
     * application's request is the listener of its conversation's end ({@link #invoke}).
     */
    private static final class Governed implements InvocationHandler {
        // Fields updated atomically, not AtomicReferences: no allocation more for every governed request.
        private static final AtomicReferenceFieldUpdater<Governed, Throwable> ABORTED =
                AtomicReferenceFieldUpdater.newUpdater(Governed.class, Throwable.class, "aborted");
        private static final AtomicReferenceFieldUpdater<Governed, Object> SENDING =
                AtomicReferenceFieldUpdater.newUpdater(Governed.class, Object.class, "sending");

        final JettyApi api;
        final Call call;
        /** Weakly: the maps key requests by it, and a value that held its key would keep the entry for good. */
        private final WeakReference<Object> original;
        /** The request's {@code HttpClient}: its executor runs the agent's sends; 9.4-11 copy a request through it. */
        final Object httpClient;
        /** Whether the engine has had the response that ends this request's attempts (a refusal handed back, a redirect). */
        volatile boolean answered;
        /** The application's abort of the request (the first cause Jetty kept); null while none. Set once. */
        private volatile Throwable aborted;
        /** The wait for a turn under way, for an abort to end; null while none. */
        volatile TurnWait waiting;
        /**
         * What the agent sends once a turn has come, until the attempt ends: an abort in the moment before its exchange
         * joins the conversation (where Jetty's own abort reaches it) is passed to it ({@link #send}, {@link #abort}).
         */
        private volatile Object sending;

        Governed(JettyApi api, Call call, Object original, Object httpClient) {
            this.api = api;
            this.call = call;
            this.original = new WeakReference<>(original);
            this.httpClient = httpClient;
        }

        Object original() {
            return original.get();
        }

        /**
         * The application aborted the request with {@code cause}: a wait for a turn ends, and what the agent is sending
         * is aborted too. Each side writes before it reads ({@link #send}), so one of them sees the other.
         */
        void abort(Throwable cause) throws Exception {
            if (!ABORTED.compareAndSet(this, null, cause)) {
                return; // Jetty keeps the first cause, and so does the agent
            }
            TurnWait wait = waiting;
            if (wait != null) {
                wait.end(cause);
            }
            Object going = SENDING.getAndSet(this, null);
            if (going != null) {
                api.abort(going, cause);
            }
        }

        /** The attempt the agent was sending is over: an abort now has nothing in flight to reach. */
        void notSending() {
            sending = null;
        }

        Throwable aborted() {
            return aborted;
        }

        /**
         * The agent sends {@code request} (after its turn came, with {@code listener}): an abort heard meanwhile is passed
         * to it (see {@link #abort}). Should Jetty throw rather than fail the request, the attempt is over.
         */
        void send(Object request, Object listener) throws Exception {
            sending = request;
            try {
                api.send(request, listener);
            } catch (Throwable t) {
                end(null);
                throw t;
            }
            Throwable cause = aborted;
            if (cause != null && SENDING.compareAndSet(this, request, null)) {
                api.abort(request, cause);
            }
        }

        /**
         * The attempt under way is over: the engine is told {@code response} (null: none came) unless it has decided on
         * this request's answer already, and the attempt's permit goes back.
         */
        void end(Object response) {
            try {
                int status = response == null ? 0 : api.status(response);
                if (!answered && status > 0) {
                    tell(api, call, status, api.headers(response));
                }
            } catch (Throwable t) {
                AgentLog.failure("reading a " + api.client + " response", t);
            } finally {
                answered = true;
                sending = null;
                call.endAttempt();
            }
        }

        /**
         * The conversation the application hears is over: the request it ended on (this one, or the last follow-up)
         * ends with its response. Heard once, with the conversation's first request's listeners, whatever follow-ups and
         * copies came between: a follow-up's own listeners are not heard once the agent has sent a copy of it.
         */
        @Override
        public Object invoke(Object proxy, Method method, Object[] args) {
            if (!method.getName().equals("onComplete")) {
                return objectMethod(proxy, method, args);
            }
            Governed last = this;
            Object response = null;
            try {
                Object request = original();
                last = request == null ? this : (Governed) api.underWay(api.conversation(request));
                response = args == null || args.length == 0 ? null : api.responseOf(args[0]);
            } catch (Throwable t) {
                AgentLog.failure("ending a " + api.client + " attempt", t);
            }
            last.end(response);
            return null;
        }
    }

    /** Whether {@code request} is the agent's own send of an attempt whose turn came: it goes as it is, once. */
    public boolean isOwnSend(Object request) {
        return request != null && granted.remove(request) != null;
    }

    /** Whether a governed call is under way in {@code conversation}. */
    public boolean isGoverned(JettyApi api, Object conversation) throws Exception {
        return api.underWay(conversation) instanceof Governed;
    }

    /**
     * True when the agent sends the request itself once its turn has come, or has failed it (a held host). A request
     * Jetty sends in a conversation a governed one began (a redirect's follow-up) is a call of its own: the exchange it
     * follows is over, and the conversation's end is its to tell.
     */
    public boolean send(JettyApi api, Object request, Object listener, String scheme, String host, int port, boolean replayable,
                        Object httpClient) {
        Governed governed;
        Object before;
        CompletableFuture<Void> turn;
        try {
            Object conversation = api.conversation(request);
            before = api.underWay(conversation);
            if (before instanceof Governed) {
                // Jetty's own follow-up (a redirect): the exchange it follows is over, and its own response (the 302) is
                // what the engine learns of it, not the follow-up's, which the conversation ends with.
                Object[] followed = api.lastExchange(conversation);
                ((Governed) before).end(followed == null ? null : followed[1]);
            }
            Call call = engine.open(Endpoint.host(host), Endpoint.port(scheme, port), replayable);
            governed = new Governed(api, call, request, httpClient);
            if (before == null) {
                api.onComplete(request, api.proxy(api.completeListener, governed));
            }
            requests.put(request, governed);
            api.underWay(conversation, governed);
            turn = Turns.start(call);
        } catch (Throwable t) {
            AgentLog.failure("governing a " + api.client + " request", t);
            return false;
        }
        if (turn.isDone() && !turn.isCompletedExceptionally()) {
            Throwable followed = before instanceof Governed ? ((Governed) before).aborted() : null;
            if (followed != null) { // a follow-up of a request the application aborted: Jetty fails it at its send
                try {
                    api.abort(request, followed);
                } catch (Throwable t) {
                    AgentLog.failure("aborting a " + api.client + " request's follow-up", t);
                }
            }
            return false; // its turn is now: Jetty sends it
        }
        try {
            // Aborted already: before its send, or (a follow-up) the request it follows, whose abort the application made.
            Throwable early = before instanceof Governed ? ((Governed) before).aborted() : null;
            early = early != null ? early : api.abortCause(request);
            if (early != null) {
                governed.abort(early);
            }
        } catch (Throwable t) {
            AgentLog.failure("reading a " + api.client + " request's abort", t);
        }
        TurnWait wait = new TurnWait(governed);
        turn.whenComplete((went, failure) -> run(governed, "sending a governed " + api.client + " request", () -> {
            Throwable ended = wait.claim();
            Throwable cause = ended != null ? ended : unwrap(failure);
            if (ended != null || cause instanceof HostHeldException) {
                requests.remove(request);
                if (before instanceof Governed) { // a follow-up: the application listens to the conversation's first request
                    governed.api.failConversation(request, null, cause);
                } else {
                    governed.api.failUnsent(request, listener, cause);
                }
                return;
            }
            if (cause != null) {
                AgentLog.failure("waiting for a " + api.client + " request's turn", cause);
                requests.remove(request);
            }
            granted.put(request, cause == null ? governed : PASS);
            governed.send(request, listener);
        }));
        return true;
    }

    /**
     * Jetty aborted {@code request} (the application did, or a watchdog of its): a wait for its turn, or its redirect
     * follow-up's, ends at once, and the request fails with the abort's cause as Jetty fails an aborted one. Jetty's own
     * aborts of a copy of the agent's in flight (its timeouts, a closed connection) change nothing here: Jetty fails that
     * exchange itself. Its aborts of the application's own request in flight (the first attempt) are read as the
     * application's: a refusal that exchange brought is then not retried, as before the agent heard aborts.
     */
    public void aborted(JettyApi api, Object request) throws Exception {
        Governed governed = requests.get(request);
        Throwable cause = governed == null || governed.original() != request ? null : api.abortCause(request);
        if (cause == null) {
            return; // not the application's request, or an abort Jetty refused (a null cause)
        }
        governed.abort(cause);
        Object underWay = api.underWay(api.conversation(request)); // read after the mark: see send()
        if (underWay instanceof Governed && underWay != governed) {
            ((Governed) underWay).abort(cause);
        }
    }

    /**
     * One wait of a governed request for its turn, which the application may end first by aborting the request, as it
     * ends a request waiting in Jetty's queue. Whichever comes first of the turn and the abort decides ({@link #claim}).
     * A total timeout ({@code Request.timeout}) does not end it: it runs for each attempt, as the agent's other clients'
     * timeouts do, so that a wait the portal asks for does not fail the request.
     */
    private static final class TurnWait {
        private static final Object WAITING = new Object();
        private static final Object GOING = new Object();
        /** {@link #WAITING}, {@link #GOING}, or the abort's cause. */
        private final AtomicReference<Object> state = new AtomicReference<>(WAITING);
        private final Governed governed;

        TurnWait(Governed governed) {
            this.governed = governed;
            governed.waiting = this;
            Throwable aborted = governed.aborted();
            if (aborted != null) { // an abort heard before this wait was known
                end(aborted);
            }
        }

        /**
         * The application aborted the request while it waited: its turn is given up, and {@link #claim} says why. The
         * request is not sent even if its turn came just before (the claim not yet made), and counts as ended waiting.
         */
        void end(Throwable cause) {
            if (state.compareAndSet(WAITING, cause)) {
                governed.call.abandonUnsent();
            }
        }

        /** As the turn ends: null when the request goes, else why the application ended it first (it does not go). */
        Throwable claim() {
            governed.waiting = null;
            return state.compareAndSet(WAITING, GOING) ? null : (Throwable) state.get();
        }
    }

    /**
     * The listener that takes a refusal of {@code status} to {@code request} in place of the application's, or null
     * when the request is not governed or the agent does not answer that refusal.
     */
    public InvocationHandler refusal(Object request, int status) {
        Governed governed = request == null ? null : requests.get(request);
        if (governed == null || governed.answered || !governed.call.answersRefusal(status)) {
            return null; // answered: a refusal being handed back asks again for the application's listeners (9.4-11)
        }
        return new RefusedExchange(governed, request, governed.api.content());
    }

    /** The engine's decision on a response of {@code status}: true to retry. */
    private static boolean tell(JettyApi api, Call call, int status, Object headers) throws Exception {
        if (call.wantsHeaders(status)) {
            for (Object field : (Iterable<?>) headers) {
                call.offerHeader(api.name(field), api.value(field));
            }
        }
        return call.onResponse(status, api.header(headers, "Retry-After"));
    }

    /** Runs {@code step} on the client's executor, never on the agent's delay thread; its failure is the agent's own. */
    private static void run(Governed governed, String what, Step step) {
        Runnable guarded = () -> {
            try {
                step.run();
            } catch (Throwable t) {
                AgentLog.failure(what, t);
            }
        };
        try {
            Executor executor = governed.api.executor(governed.httpClient);
            if (executor != null) {
                executor.execute(guarded);
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

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /** A proxy's own {@code Object} methods, and any other of a listener's that the agent has no use for. */
    public static Object objectMethod(Object proxy, Method method, Object[] args) {
        switch (method.getName()) {
            case "equals": return proxy == args[0];
            case "hashCode": return System.identityHashCode(proxy);
            case "toString": return "retry-after-agent@" + Integer.toHexString(System.identityHashCode(proxy));
            default: return method.getReturnType() == boolean.class ? Boolean.TRUE : null;
        }
    }

    /**
     * The listener of a governed refusal's exchange, in place of the application's: decides at the headers; a retry
     * reads the body to its end and drops it, and sends a copy after the wait; else the application's listeners get the
     * exchange from its status line on, its content passed to them as it comes ({@link JettyApi.Content}).
     */
    private final class RefusedExchange implements InvocationHandler {
        private final Governed governed;
        private final Object request;
        private final JettyApi.Content content;
        private volatile boolean handedBack;
        private volatile Object next;

        RefusedExchange(Governed governed, Object request, JettyApi.Content content) {
            this.governed = governed;
            this.request = request;
            this.content = content;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Exception {
            switch (method.getName()) {
                case "onHeaders":
                    decide(args[0]);
                    return null;
                case "onHeader":
                    return Boolean.TRUE;
                case "onComplete":
                    if (!handedBack) {
                        retry(args[0]);
                    }
                    return null;
                case "onBegin":
                case "onSuccess":
                case "onFailure":
                    return null;
                default:
                    return content.on(proxy, method, args);
            }
        }

        private void decide(Object response) {
            JettyApi api = governed.api;
            Call call = governed.call;
            boolean retry;
            try {
                governed.answered = true;
                retry = tell(api, call, api.status(response), api.headers(response));
                if (retry) {
                    next = api.retryCopy(governed.httpClient, request);
                    retry = next != null; // a body that cannot be read again from its start goes back with its refusal
                }
            } catch (Throwable t) {
                AgentLog.failure("deciding on a " + api.client + " response", t);
                retry = false;
            }
            governed.answered = !retry;
            if (!retry) {
                handBack(response);
            }
        }

        /** The application's listeners hear this exchange as if the agent had not been asked: begin, headers, and on. */
        private void handBack(Object response) {
            JettyApi api = governed.api;
            try {
                Object listeners = api.applicationListeners(api.conversation(request));
                content.handingTo(listeners);
                handedBack = true;
                api.notifyBegin(listeners, response);
                for (Object field : (Iterable<?>) api.headers(response)) {
                    api.notifyHeader(listeners, response, field);
                }
                api.notifyHeaders(listeners, response);
            } catch (Throwable t) {
                AgentLog.failure("handing a " + api.client + " response back", t);
            }
        }

        /** The refused exchange is over: its permit goes back, and the copy goes when its turn comes. */
        private void retry(Object result) {
            Call call = governed.call;
            governed.notSending(); // that attempt is over: an abort now has nothing in flight to reach
            call.endAttempt();
            Object copy = next;
            JettyApi api = governed.api;
            Object response = null;
            CompletableFuture<Void> turn;
            TurnWait wait;
            try {
                response = api.responseOf(result);
                if (copy == null) { // the exchange failed before its headers were in: nothing was decided, its failure is the outcome
                    Throwable failed = api.failureOf(result);
                    api.failConversation(request, response, failed != null ? failed : new java.io.IOException("the refused exchange failed"));
                    return;
                }
                Throwable aborted = governed.aborted();
                if (aborted != null) { // no turn taken for a request that will not go
                    call.abandon();
                    governed.answered = true;
                    api.failConversation(request, response, aborted);
                    return;
                }
                turn = Turns.start(call);
                wait = new TurnWait(governed);
            } catch (Throwable t) {
                AgentLog.failure("retrying a " + api.client + " request", t);
                if (copy == null || governed.aborted() != null) {
                    return; // nothing to send, or nothing the application wants sent
                }
                turn = CompletableFuture.completedFuture(null);
                wait = null;
                requests.remove(copy);
                granted.put(copy, PASS);
            }
            Object refused = response;
            TurnWait waited = wait;
            turn.whenComplete((went, failure) -> run(governed, "sending a governed " + api.client + " request", () -> {
                Throwable ended = waited == null ? null : waited.claim();
                Throwable cause = ended != null ? ended : unwrap(failure);
                if (ended != null || cause instanceof HostHeldException) {
                    // The application aborted it while it waited, or its host is held: nothing
                    // more goes, the copy neither. The engine has had the refusal the conversation now ends with.
                    call.endAttempt();
                    call.abandon();
                    governed.answered = true;
                    api.failConversation(request, refused, cause);
                    return;
                }
                if (cause != null) {
                    AgentLog.failure("waiting to retry a " + api.client + " request", cause);
                    granted.put(copy, PASS);
                } else {
                    requests.put(copy, governed);
                    granted.putIfAbsent(copy, governed);
                }
                governed.send(copy, null);
            }));
        }
    }
}
