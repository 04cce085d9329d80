package dev.retryafter.agent.instrument;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.Delays;
import dev.retryafter.agent.engine.HostHeldException;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The future an application holds for an asynchronous call the agent governs through the client's own
 * {@code execute} (HttpAsyncClient 4.1 and 5): one attempt after another, each once its turn has come, with no thread
 * asleep, until an outcome is final. Cancelling it abandons the call (its place in the host's queue, its wait) and
 * cancels the attempt in flight. A client's exchange says how to send one attempt through proxies of its own
 * interfaces, how to send the plain call (the fallback when the agent fails), and how to read a response's head; the
 * fallback, the outcome and the cancel are written here once, the turns in {@link AsyncCall}.
 */
public abstract class AsyncExchange extends AsyncCall<Object> {

    protected final CallDepth depth;
    protected final Delays delays;
    private final ClientShape shape;
    /** The client, and its {@code execute}'s arguments as the application gave them. */
    private final Object target;
    protected final Object[] arguments;
    /** The application's callback, null for none. */
    private final Object callback;
    /** Set once, by whichever outcome comes first (the exchange's, the client's cancel, the application's): the only one told. */
    private final AtomicBoolean finished = new AtomicBoolean();

    /** {@code client}'s {@code execute}, as {@code shape} names it, called with {@code arguments}. */
    protected AsyncExchange(String clientName, Call call, CallDepth depth, Delays delays, ClientShape shape, Object client,
                            Object[] arguments) {
        super(clientName, call);
        this.shape = shape;
        this.depth = depth;
        this.delays = delays;
        this.target = client;
        this.arguments = arguments;
        this.callback = arguments[shape.callback];
    }

    /** A new attempt's consumer, standing in front of the application's. */
    protected abstract AsyncAttempt<?> newAttempt();

    /**
     * The arguments of {@code attempt}: the application's, with the agent's consumer and callback. An
     * {@link InvocationTargetException} is the application's producer failing to start again, and is the call's outcome.
     */
    protected Object[] prepare(AsyncAttempt<?> attempt) throws Exception {
        Object[] attemptArguments = arguments.clone();
        attemptArguments[shape.consumer] = Proxy.newProxyInstance(shape.loader, new Class<?>[] {shape.consumerType}, attempt);
        attemptArguments[shape.callback] = callbackProxy(attempt.outcome);
        return attemptArguments;
    }

    /** The client's own {@code execute}: an attempt, or the plain call. */
    protected Future<?> execute(Object[] executeArguments) throws Exception {
        return (Future<?>) shape.execute.invoke(target, executeArguments);
    }

    /** The application's request as the client alone would send it, its outcome told to {@code callbackProxy}. */
    protected Future<?> executePlain(Object callbackProxy) throws Exception {
        Object[] plain = arguments.clone();
        plain[shape.callback] = callbackProxy;
        return execute(plain);
    }

    /** The application's response consumer. */
    public final Object consumer() {
        return arguments[shape.consumer];
    }

    /** The call is over: what named it (a context attribute) no longer does. */
    protected void forget() {
    }

    @Override
    protected void held(HostHeldException held) {
        failUnsent(held);
    }

    /** Given up: an outcome settled (a cancel settles it before the future reads as cancelled), or the future completed. */
    @Override
    protected boolean abandoned() {
        return finished.get() || isDone();
    }

    /**
     * One attempt through the client's own {@code execute}, inside this call so its advice lets it run. False only
     * when {@code atOnce} and the client threw before sending anything.
     */
    @Override
    protected final boolean send(boolean atOnce) {
        AsyncAttempt<?> attempt = newAttempt();
        Object[] prepared;
        try {
            prepared = prepare(attempt);
        } catch (InvocationTargetException e) {
            call.endAttempt(); // the application's producer could not start again: its failure is the outcome
            failUnsent(asException(e.getCause()));
            return true;
        } catch (Throwable t) {
            return notSent(atOnce, t);
        }
        Call previous = depth.enter(call);
        try {
            Future<?> sent = execute(prepared);
            attempt.sent(sent);
            inFlight = sent;
            if (abandoned()) {
                sent.cancel(true); // cancelled by the application while this was being sent
            }
            return true;
        } catch (InvocationTargetException e) {
            if (atOnce) {
                forget();
                return false;
            }
            call.endAttempt();
            failUnsent(asException(e.getCause()));
            return true;
        } catch (Throwable t) {
            return notSent(atOnce, t);
        } finally {
            depth.restore(previous);
        }
    }

    /** The agent failed before an attempt went: the original method runs (at once), or the plain call goes (later). */
    private boolean notSent(boolean atOnce, Throwable agentFailure) {
        if (atOnce) {
            AgentLog.failure("governing an " + client + " call", agentFailure);
            forget();
            return false;
        }
        fallBack(agentFailure);
        return true;
    }

    @Override
    protected final void fallBack(Throwable agentFailure) {
        AgentLog.failure("governing an " + client + " call", agentFailure);
        call.endAttempt();
        forget();
        Call previous = depth.enter(call); // so the advice lets the plain call run
        try {
            Future<?> plain = executePlain(callbackProxy(new PlainOutcome(this)));
            inFlight = plain;
            if (abandoned()) {
                plain.cancel(true); // cancelled by the application while this was being sent
            }
        } catch (InvocationTargetException e) {
            failUnsent(asException(e.getCause()));
        } catch (Throwable t) {
            failUnsent(asException(t));
        } finally {
            depth.restore(previous);
        }
    }

    /** A proxy of the client's callback interface. */
    protected final Object callbackProxy(InvocationHandler handler) {
        return Proxy.newProxyInstance(shape.loader, new Class<?>[] {shape.callbackType}, handler);
    }

    /** An attempt is over: on to the next, or the outcome is final. Runs on the client's I/O thread. */
    final void attemptEnded(AsyncAttempt<?> attempt, Object result, Exception failure, boolean cancelledByClient) {
        call.endAttempt();
        if (finished.get()) {
            return; // cancelled by the application: it has been told
        }
        if (attempt.discarding()) {
            if (!isDone()) {
                next(); // a refusal retried: its body's end, a failure reading it, or its exchange given up on alike
            }
            return;
        }
        if (cancelledByClient) {
            cancelledByClient();
        } else if (failure != null) {
            failHere(failure);
        } else {
            succeed(result);
        }
    }

    final void succeed(Object result) {
        if (!finished.compareAndSet(false, true)) {
            return; // cancelled meanwhile: the application was told that
        }
        forget();
        complete(result);
        tell(shape.completed, result);
    }

    /**
     * A failure no attempt in flight has told the application of (a held host, a producer that could not start
     * again, the agent's own): told on another thread. A client whose consumer and producer must hear it too says so.
     */
    protected void failUnsent(Exception failure) {
        ASYNC.execute(() -> failHere(failure));
    }

    protected final void failHere(Exception failure) {
        if (!finished.compareAndSet(false, true)) {
            return;
        }
        forget();
        completeExceptionally(failure);
        tell(shape.failed, failure);
    }

    final void cancelledByClient() {
        if (!finished.compareAndSet(false, true)) {
            return;
        }
        forget();
        super.cancel(false);
        tell(shape.cancelled);
    }

    private void tell(Method method, Object... args) {
        if (callback == null) {
            return;
        }
        try {
            method.invoke(callback, args);
        } catch (InvocationTargetException e) {
            AgentLog.logger().debug("the application's callback threw", e.getCause()); // as the client's own future lets it go
        } catch (ReflectiveOperationException | RuntimeException e) {
            AgentLog.failure("calling an " + client + " callback", e);
        }
    }

    /** The application cancels: the call is abandoned, the attempt in flight cancelled, its callback told. */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        if (!finished.compareAndSet(false, true)) {
            return false; // an outcome came first, and was told
        }
        boolean cancelled = super.cancel(mayInterruptIfRunning); // false: the application completed it itself; the call stops all the same
        call.abandon();
        Future<?> current = inFlight;
        if (current != null) {
            current.cancel(true);
        }
        forget();
        if (cancelled) {
            tell(shape.cancelled);
        }
        return cancelled;
    }

    /** The agent's decision on a response head: true to discard it and send again. */
    final boolean decideRetry(Object response) {
        try {
            int status = shape.status(response);
            if (call.wantsHeaders(status)) {
                for (Object header : shape.headers(response)) {
                    call.offerHeader(shape.headerName(header), shape.headerValue(header));
                }
            }
            return call.onResponse(status, status >= AgentHooks.LOWEST_REFUSAL ? shape.firstHeader(response, "Retry-After") : null);
        } catch (Throwable t) {
            AgentLog.failure("deciding on an " + client + " response", t);
            return false;
        }
    }

    final void completeCallback(Object resultCallback) throws ReflectiveOperationException {
        shape.completed.invoke(resultCallback, (Object) null);
    }

    /**
     * A client's types as the exchange reaches them, by reflection: its {@code execute}, the response consumer and the
     * callback interface it takes (the agent's are proxies of them, made in the consumer's {@code loader}) and the
     * callback's three methods; how a response head
     * reads: its status and headers as each client names them (at the shape's making), a header's name and value, a header's first value or
     * null, and a host, as both Apache versions name them (found at first use: the classes are the client's, but its
     * {@code execute} does not name them).
     */
    public abstract static class ClientShape {
        /** The client's {@code execute}, each attempt's. */
        public final Method execute;
        public final Class<?> consumerType;
        /** Where {@code execute} takes the response consumer and the callback. */
        final int consumer;
        final int callback;
        public final ClassLoader loader;
        public final Class<?> callbackType;
        final Method completed;
        final Method failed;
        final Method cancelled;
        private final Proxies.FoundAtFirstUse[] status;
        private final Proxies.FoundAtFirstUse headers;
        private final Proxies.FoundAtFirstUse getFirstHeader = new Proxies.FoundAtFirstUse("getFirstHeader", String.class);
        private final Proxies.FoundAtFirstUse getName = new Proxies.FoundAtFirstUse("getName");
        private final Proxies.FoundAtFirstUse getValue = new Proxies.FoundAtFirstUse("getValue");
        private final Proxies.FoundAtFirstUse getSchemeName = new Proxies.FoundAtFirstUse("getSchemeName");
        private final Proxies.FoundAtFirstUse getHostName = new Proxies.FoundAtFirstUse("getHostName");
        private final Proxies.FoundAtFirstUse getPort = new Proxies.FoundAtFirstUse("getPort");

        /**
         * {@code execute}'s response consumer and callback are its parameters {@code consumer} and {@code callback}; a
         * response's headers are its {@code headers()}, its status what the {@code status} getters read in turn.
         */
        protected ClientShape(Method execute, int consumer, int callback, String headers, String... status) throws NoSuchMethodException {
            this.execute = execute;
            this.consumer = consumer;
            this.callback = callback;
            consumerType = execute.getParameterTypes()[consumer];
            loader = consumerType.getClassLoader();
            callbackType = execute.getParameterTypes()[callback];
            completed = callbackType.getMethod("completed", Object.class);
            failed = callbackType.getMethod("failed", Exception.class);
            cancelled = callbackType.getMethod("cancelled");
            this.headers = new Proxies.FoundAtFirstUse(headers);
            this.status = new Proxies.FoundAtFirstUse[status.length];
            for (int i = 0; i < status.length; i++) {
                this.status[i] = new Proxies.FoundAtFirstUse(status[i]);
            }
        }

        final int status(Object response) throws ReflectiveOperationException {
            Object value = response;
            for (Proxies.FoundAtFirstUse getter : status) {
                value = getter.invoke(value);
            }
            return (Integer) value;
        }

        final Object[] headers(Object response) throws ReflectiveOperationException {
            return (Object[]) headers.invoke(response);
        }

        final String firstHeader(Object response, String name) throws ReflectiveOperationException {
            Object header = getFirstHeader.invoke(response, name);
            return header == null ? null : headerValue(header);
        }

        final String headerName(Object header) throws ReflectiveOperationException {
            return (String) getName.invoke(header);
        }

        final String headerValue(Object header) throws ReflectiveOperationException {
            return (String) getValue.invoke(header);
        }

        /** {@code {scheme, host name, port}} of an {@code HttpHost}, as both Apache versions name them. */
        public final Object[] endpoint(Object httpHost) throws ReflectiveOperationException {
            return new Object[] {getSchemeName.invoke(httpHost), getHostName.invoke(httpHost), getPort.invoke(httpHost)};
        }
    }

    /** The outcome of a plain attempt (the agent's fallback), handed through as it comes. */
    private static final class PlainOutcome implements InvocationHandler {
        private final AsyncExchange exchange;

        PlainOutcome(AsyncExchange exchange) {
            this.exchange = exchange;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) {
            if (method.getDeclaringClass() == Object.class) {
                return Proxies.identity(proxy, method, args);
            }
            if (exchange.finished.get()) {
                return null;
            }
            switch (method.getName()) {
                case "completed":
                    exchange.succeed(args[0]);
                    break;
                case "failed":
                    exchange.failHere((Exception) args[0]);
                    break;
                default:
                    exchange.cancelledByClient();
            }
            return null;
        }
    }

    static Exception asException(Throwable failure) {
        return failure instanceof Exception ? (Exception) failure : new IllegalStateException(failure);
    }
}
