package dev.retryafter.agent.instrument;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.Delays;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.report.Turns;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;

/**
 * The future an application holds for an asynchronous call the agent governs through the client's own
 * {@code execute} (HttpAsyncClient 4.1 and 5): one attempt after another, each once its turn has come, with no thread
 * asleep, until an outcome is final. Cancelling it abandons the call (its place in the host's queue, its wait) and
 * cancels the attempt in flight. A client's exchange says how to send one attempt through proxies of its own
 * interfaces, how to send the plain call (the fallback when the agent fails), and how to read a response's head; the
 * turns, the fallback, the outcome and the cancel are written here once.
 */
public abstract class AsyncExchange extends CompletableFuture<Object> {

    /** As the other adapters' discards: long enough for a small body on a slow link, short against any wait. */
    public static final long DISCARD_MILLIS = 100;
    public static final long DISCARD_BYTES = 64 * 1024;

    /** Where the agent's own failures and delayed sends run: never the agent's delay thread, never an I/O dispatcher. */
    public static final Executor ASYNC = ForkJoinPool.getCommonPoolParallelism() > 1 ? ForkJoinPool.commonPool() : new ThreadPerTask();

    /** A class, not a lambda: see AgentInstaller. */
    private static final class ThreadPerTask implements Executor {
        @Override
        public void execute(Runnable task) {
            Thread thread = new Thread(task, "retry-after-agent-async");
            thread.setDaemon(true);
            thread.start();
        }
    }

    protected final Call call;
    protected final CallDepth depth;
    protected final Delays delays;
    /** How failures name the client: {@code "Apache async 4"}. */
    private final String client;
    private final ClassLoader loader;
    private final Class<?> callbackType;
    private final Object callback;
    private final Method completed;
    private final Method failed;
    private final Method cancelled;
    private final ResponseHeads heads;
    private volatile Future<?> inFlight;
    private volatile boolean finished;

    /**
     * {@code callback} is the application's, null for none, with its three methods; {@code loader} and
     * {@code callbackType} make the agent's callbacks of the same interface.
     */
    protected AsyncExchange(String client, Call call, CallDepth depth, Delays delays, ClassLoader loader, Class<?> callbackType,
                            Object callback, Method completed, Method failed, Method cancelled, ResponseHeads heads) {
        this.heads = heads;
        this.client = client;
        this.call = call;
        this.depth = depth;
        this.delays = delays;
        this.loader = loader;
        this.callbackType = callbackType;
        this.callback = callback;
        this.completed = completed;
        this.failed = failed;
        this.cancelled = cancelled;
    }

    /** A new attempt's consumer, standing in front of the application's. */
    protected abstract AsyncAttempt newAttempt();

    /**
     * What {@link #execute} needs for {@code attempt}: the client's proxies of it. An {@link InvocationTargetException}
     * is the application's producer failing to start again, and is the call's outcome.
     */
    protected abstract Object prepare(AsyncAttempt attempt) throws Exception;

    /** One attempt through the client's own {@code execute}, with what {@link #prepare} made. */
    protected abstract Future<?> execute(Object prepared) throws Exception;

    /** The application's request as the client alone would send it, its outcome told to {@code callbackProxy}. */
    protected abstract Future<?> executePlain(Object callbackProxy) throws Exception;

    /** The call is over: what named it (a context attribute) no longer does. */
    protected void forget() {
    }

    /**
     * The first attempt, on the application's thread: false when the client's own {@code execute} threw there at once
     * (a client not started: nothing was sent), and the original method is to run and throw it as it always did.
     */
    public final boolean first() {
        CompletableFuture<Void> turn;
        try {
            turn = Turns.start(call);
        } catch (RuntimeException e) {
            AgentLog.failure("taking an " + client + " turn", e);
            call.endAttempt();
            return false;
        }
        if (turn.isDone() && !turn.isCompletedExceptionally()) {
            if (!send(true)) {
                call.endAttempt();
                return false;
            }
            return true;
        }
        afterTurn(turn);
        return true;
    }

    /** Any later attempt, after a refusal: its turn is a scheduled continuation, never a blocked thread. */
    final void attempt() {
        CompletableFuture<Void> turn;
        try {
            turn = Turns.start(call);
        } catch (RuntimeException e) {
            fallBack(e);
            return;
        }
        afterTurn(turn);
    }

    private void afterTurn(CompletableFuture<Void> turn) {
        inFlight = turn;
        turn.whenCompleteAsync((granted, failure) -> {
            if (failure == null) {
                if (isDone()) {
                    call.endAttempt(); // cancelled by the application while the turn came
                } else {
                    send(false);
                }
                return;
            }
            Throwable cause = unwrap(failure);
            if (cause instanceof HostHeldException) {
                failUnsent((HostHeldException) cause);
            } else if (!(cause instanceof CancellationException)) {
                fallBack(cause);
            }
        }, ASYNC);
    }

    /**
     * One attempt through the client's own {@code execute}, inside this call so its advice lets it run. False only
     * when {@code atOnce} and the client threw before sending anything.
     */
    private boolean send(boolean atOnce) {
        AsyncAttempt attempt = newAttempt();
        Object prepared;
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
            if (isDone()) {
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

    /** Something inside the agent failed: the request goes out once more, as the client alone would send it. */
    private void fallBack(Throwable agentFailure) {
        AgentLog.failure("governing an " + client + " call", agentFailure);
        call.endAttempt();
        forget();
        Call previous = depth.enter(call); // so the advice lets the plain call run
        try {
            inFlight = executePlain(callbackProxy(new PlainOutcome(this)));
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
        return Proxy.newProxyInstance(loader, new Class<?>[] {callbackType}, handler);
    }

    /** An attempt is over: on to the next, or the outcome is final. Runs on the client's I/O thread. */
    final void attemptEnded(AsyncAttempt attempt, Object result, Exception failure, boolean cancelledByClient) {
        call.endAttempt();
        if (finished) {
            return; // cancelled by the application: it has been told
        }
        if (attempt.discarding()) {
            if (!isDone()) {
                attempt(); // a refusal retried: its body's end, a failure reading it, or its exchange given up on alike
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
        finished = true;
        forget();
        complete(result);
        tell(completed, result);
    }

    /**
     * A failure no attempt in flight has told the application of (a held host, a producer that could not start
     * again, the agent's own): told on another thread. A client whose consumer and producer must hear it too says so.
     */
    protected void failUnsent(Exception failure) {
        ASYNC.execute(() -> failHere(failure));
    }

    protected final void failHere(Exception failure) {
        finished = true;
        forget();
        completeExceptionally(failure);
        tell(failed, failure);
    }

    final void cancelledByClient() {
        finished = true;
        forget();
        super.cancel(false);
        tell(cancelled);
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
        if (finished || !super.cancel(mayInterruptIfRunning)) {
            return false;
        }
        finished = true;
        call.abandon();
        Future<?> current = inFlight;
        if (current != null) {
            current.cancel(true);
        }
        forget();
        tell(cancelled);
        return true;
    }

    /** The agent's decision on a response head: true to discard it and send again. */
    final boolean decideRetry(Object response) {
        try {
            int status = heads.status(response);
            if (call.wantsHeaders(status)) {
                for (Object header : heads.headers(response)) {
                    call.offerHeader(heads.headerName(header), heads.headerValue(header));
                }
            }
            return call.onResponse(status, status >= AgentHooks.LOWEST_REFUSAL ? heads.firstHeader(response, "Retry-After") : null);
        } catch (Throwable t) {
            AgentLog.failure("deciding on an " + client + " response", t);
            return false;
        }
    }

    final void completeCallback(Object resultCallback) throws ReflectiveOperationException {
        completed.invoke(resultCallback, (Object) null);
    }

    /**
     * How a client's response head reads, by reflection: its status and headers as each client names them; a header's
     * name and value, and a header's first value or null, as both Apache versions name them. Methods found at first use:
     * the classes are the client's, but its {@code execute} does not name them.
     */
    public abstract static class ResponseHeads {
        private volatile Method getFirstHeader;
        private volatile Method headerName;
        private volatile Method headerValue;

        public abstract int status(Object response) throws ReflectiveOperationException;

        public abstract Object[] headers(Object response) throws ReflectiveOperationException;

        final String firstHeader(Object response, String name) throws ReflectiveOperationException {
            if (getFirstHeader == null) {
                getFirstHeader = publicMethod(response.getClass(), "getFirstHeader", String.class);
            }
            Object header = getFirstHeader.invoke(response, name);
            return header == null ? null : headerValue(header);
        }

        final String headerName(Object header) throws ReflectiveOperationException {
            if (headerName == null) {
                headerName = publicMethod(header.getClass(), "getName");
            }
            return (String) headerName.invoke(header);
        }

        final String headerValue(Object header) throws ReflectiveOperationException {
            if (headerValue == null) {
                headerValue = publicMethod(header.getClass(), "getValue");
            }
            return (String) headerValue.invoke(header);
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
                return identity(proxy, method, args);
            }
            if (exchange.finished) {
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

    /** The proxy's own {@code Object} methods: equal to itself alone. */
    public static Object identity(Object proxy, Method method, Object[] args) {
        switch (method.getName()) {
            case "equals":
                return proxy == args[0];
            case "hashCode":
                return System.identityHashCode(proxy);
            default:
                return "retry-after-agent " + proxy.getClass().getInterfaces()[0].getSimpleName();
        }
    }

    /** {@code method} on {@code target}, its own exception thrown as it is. */
    public static Object forward(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    static Exception asException(Throwable failure) {
        return failure instanceof Exception ? (Exception) failure : new IllegalStateException(failure);
    }

    /** The method as a public class or interface declares it: the client's implementations need not be public. */
    public static Method publicMethod(Class<?> type, String name, Class<?>... parameters) throws NoSuchMethodException {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.isInterface() || Modifier.isPublic(c.getModifiers())) {
                try {
                    return c.getMethod(name, parameters);
                } catch (NoSuchMethodException next) {
                    // on to its interfaces
                }
            }
            for (Class<?> i : c.getInterfaces()) {
                try {
                    return i.getMethod(name, parameters);
                } catch (NoSuchMethodException next) {
                    // on to the next
                }
            }
        }
        throw new NoSuchMethodException(name + " on " + type.getName());
    }
}
