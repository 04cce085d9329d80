package dev.retryafter.agent.instrument.asynchttpclient;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.Delays;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.AsyncCall;
import dev.retryafter.agent.instrument.Proxies;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * One request as the application made it, through its attempts ({@link AsyncCall}: its turns); and, as the invocation
 * handler of a proxy of the client's {@code ListenableFuture}, the future the application holds (its
 * {@code toCompletableFuture()} is this call itself). Each attempt is the client's own
 * {@code execute} with an {@link Attempt} for handler; the future completes with the final attempt's outcome, as the
 * client's own future would have. Cancelling or aborting it abandons the request (its place in the host's queue, its
 * wait) and stops the attempt in flight; the application's handler hears it once.
 */
final class GovernedRequest extends AsyncCall<Object> implements InvocationHandler {

    private final AhcApi api;
    private final CallDepth depth;
    private final Delays delays;
    private final Object client;
    private final Object request;
    private final Object handler;
    private final Object future;
    /** The attempt in flight, or the last one; null before the first and after a fallback. */
    private volatile Attempt current;
    /** The plain call the agent fell back to, if it did. */
    private volatile Future<?> plain;
    /** Cancelled, aborted or failed: no attempt goes any more. */
    private volatile boolean finished;
    /** The outcome came from the client's exchange: what completes this future then is no one else's. */
    private volatile boolean settled;

    GovernedRequest(AhcApi api, Call call, CallDepth depth, Delays delays, Object client, Object request, Object handler) {
        super("AsyncHttpClient", call);
        this.api = api;
        this.depth = depth;
        this.delays = delays;
        this.client = client;
        this.request = request;
        this.handler = handler;
        this.future = api.future(this);
        whenComplete(new CompletedByAnyone());
    }

    /**
     * {@code toCompletableFuture()} is this future itself: an application that completes it (its {@code orTimeout},
     * {@code cancel}, {@code complete}) is done with the request, which ends as if cancelled: no turn of it goes any
     * more, an attempt in flight stops, and the application's handler hears the failure once (or a cancel, for a
     * completion with a value), as no attempt of the agent's will tell it an end now.
     */
    private final class CompletedByAnyone implements BiConsumer<Object, Throwable> {
        @Override
        public void accept(Object result, Throwable failure) {
            if (!settled && !finished) {
                finished = true;
                stop(failure != null ? unwrap(failure) : new CancellationException("completed by the application"));
            }
        }
    }

    Object future() {
        return future;
    }

    AhcApi api() {
        return api;
    }

    Call call() {
        return call;
    }

    Delays delays() {
        return delays;
    }

    Object handler() {
        return handler;
    }

    /**
     * One attempt through the client's own {@code execute}, inside this call so its advice lets it through. False
     * only when {@code atOnce} and the agent could not send it: the original method then runs.
     */
    @Override
    protected boolean send(boolean atOnce) {
        Attempt attempt = new Attempt(this);
        Object sent;
        Call previous = depth.enter(call);
        try {
            sent = api.execute.invoke(client, request, api.handler(attempt));
        } catch (InvocationTargetException e) { // execute catches every Exception itself: an Error of the client's
            if (atOnce) {
                return false;
            }
            call.endAttempt();
            failWith(e.getCause());
            return true;
        } catch (Throwable t) {
            if (atOnce) {
                AgentLog.failure("governing an AsyncHttpClient request", t);
                return false;
            }
            fallBack(t);
            return true;
        } finally {
            depth.restore(previous);
        }
        attempt.sent(sent);
        current = attempt;
        try {
            api.completion(sent).whenComplete(new AttemptEnded(attempt));
        } catch (Throwable t) { // its handler is the agent's and hands the outcome on; only the permit is not given back at its end
            AgentLog.failure("watching an AsyncHttpClient attempt", t);
            call.endAttempt();
        }
        if (finished) {
            attempt.stop(new CancellationException()); // cancelled by the application while this was being sent
        }
        return true;
    }

    /** An attempt's future completed: on to the next after a refusal discarded, or the outcome is the application's. */
    private final class AttemptEnded implements BiConsumer<Object, Throwable> {
        private final Attempt attempt;

        AttemptEnded(Attempt attempt) {
            this.attempt = attempt;
        }

        @Override
        public void accept(Object result, Throwable failure) {
            call.endAttempt();
            if (attempt.discarding()) {
                if (!finished) {
                    next(); // its body's end, a failure reading it, or its connection closed alike
                }
                return;
            }
            settle(result, failure);
        }
    }

    private void settle(Object result, Throwable failure) {
        settled = true;
        if (failure != null) {
            completeExceptionally(unwrap(failure));
        } else {
            complete(result);
        }
    }

    @Override
    protected void held(HostHeldException held) {
        failWith(held);
    }

    /** The request fails with a failure of the agent's (a held host) or of the client's: its handler hears it, then its future. */
    private void failWith(Throwable failure) {
        finished = true;
        if (!isDone()) {
            api.tellFailure(handler, failure);
            completeExceptionally(failure);
        }
    }

    @Override
    protected boolean abandoned() {
        return finished;
    }

    @Override
    protected void fallBack(Throwable agentFailure) {
        AgentLog.failure("governing an AsyncHttpClient request", agentFailure);
        call.endAttempt();
        if (finished) {
            return;
        }
        current = null;
        Call previous = depth.enter(call); // so the advice lets the plain call through
        try {
            Object sent = api.execute.invoke(client, request, handler);
            plain = (Future<?>) sent;
            api.completion(sent).whenComplete(new PlainEnded());
        } catch (InvocationTargetException e) {
            failWith(e.getCause());
        } catch (Throwable t) {
            failWith(t);
        } finally {
            depth.restore(previous);
        }
    }

    private final class PlainEnded implements BiConsumer<Object, Throwable> {
        @Override
        public void accept(Object result, Throwable failure) {
            settle(result, failure);
        }
    }

    /** The application's {@code ListenableFuture}. */
    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getDeclaringClass() == Object.class) {
            return Proxies.identity(proxy, method, args);
        }
        switch (method.getName()) {
            case "get":
                return args == null || args.length == 0 ? get() : get((Long) args[0], (TimeUnit) args[1]);
            case "isDone":
                return isDone();
            case "isCancelled":
                return isCancelled();
            case "cancel":
                return cancelByApplication();
            case "abort":
                abort((Throwable) args[0]);
                return null;
            case "touch":
                touch();
                return null;
            case "addListener":
                whenComplete(new Listener((Runnable) args[0], (Executor) args[1]));
                return proxy;
            case "toCompletableFuture":
                return this;
            default: // done(): the client's own completion, which this future does itself
                return null;
        }
    }

    private boolean cancelByApplication() {
        if (isDone()) {
            return false;
        }
        finished = true;
        if (!cancel(false)) {
            return false;
        }
        stop(new CancellationException());
        return true;
    }

    private void abort(Throwable why) {
        if (isDone()) {
            return;
        }
        finished = true;
        stop(why);
        completeExceptionally(why);
    }

    /** The request is given up: no turn of it goes, the attempt in flight stops, the application's handler hears it once. */
    private void stop(Throwable why) {
        call.abandon();
        Attempt attempt = current;
        if (attempt != null) {
            attempt.stop(why);
        }
        Future<?> plainCall = plain;
        if (plainCall != null) {
            plainCall.cancel(true);
            return; // its handler is the application's, and hears it from the client
        }
        if (attempt != null && !attempt.claimEnd()) {
            return; // the handler heard the response's end, or is hearing it: it hears one end, never two
        }
        api.tellFailure(handler, why);
    }

    private void touch() {
        Attempt attempt = current;
        Object sent = attempt == null ? null : attempt.future();
        if (sent != null) {
            try {
                api.touch(sent);
            } catch (Throwable t) {
                AgentLog.failure("touching an AsyncHttpClient attempt", t);
            }
        }
    }

    /** {@code addListener(listener, executor)}: run once the outcome is final, on the executor, or at once without one. */
    private static final class Listener implements BiConsumer<Object, Throwable> {
        private final Runnable listener;
        private final Executor executor;

        Listener(Runnable listener, Executor executor) {
            this.listener = listener;
            this.executor = executor;
        }

        @Override
        public void accept(Object result, Throwable failure) {
            if (executor == null) {
                listener.run();
            } else {
                executor.execute(listener);
            }
        }
    }
}
