package dev.retryafter.agent.instrument.asynchttpclient;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.instrument.AsyncCall;
import dev.retryafter.agent.instrument.HeaderEntries;
import dev.retryafter.agent.instrument.Proxies;

import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One attempt's {@code AsyncHandler}, standing in front of the application's. The status line is held back until
 * the headers have come, and the agent decides on both: a response it does not retry is handed to the application's
 * handler from its status line on, unchanged, and everything after it too; a refusal it retries is the agent's alone:
 * its body read and dropped within {@link AsyncCall#DISCARD_MILLIS} and
 * {@link AsyncCall#DISCARD_BYTES} (the connection goes back to the pool), else the attempt aborted, which
 * closes its connection; the application's handler hears nothing of it.
 */
final class Attempt implements InvocationHandler {

    private final GovernedRequest request;
    private final AhcApi api;
    private volatile boolean discarding;
    /** Stopped by the application (cancel, abort): the application's handler is told by the request, not through here. */
    private volatile boolean silenced;
    private volatile Object future;
    /** Claimed by the first end the application's handler is to hear (its onCompleted, its onThrowable, or a cancel's): the only one. */
    private final AtomicBoolean ended = new AtomicBoolean();
    private volatile CompletableFuture<Void> giveUp;
    private Object status;
    private long bytes;

    Attempt(GovernedRequest request) {
        this.request = request;
        this.api = request.api();
    }

    boolean discarding() {
        return discarding;
    }

    void sent(Object attemptFuture) {
        future = attemptFuture;
    }

    Object future() {
        return future;
    }

    /** Claims the handler's one end: true for the first caller, who tells it; false once an end was told or is being told. */
    boolean claimEnd() {
        return ended.compareAndSet(false, true);
    }

    /** The application gave the request up: the attempt is cancelled or aborted, and says nothing of it to the application. */
    void stop(Throwable why) {
        silenced = true;
        Object sent = future;
        if (sent == null || ((Future<?>) sent).isDone()) {
            return; // over: its connection may already serve another request, and must not be closed
        }
        try {
            if (why instanceof CancellationException) {
                ((Future<?>) sent).cancel(true);
            } else {
                api.abort(sent, why);
            }
        } catch (Throwable t) {
            AgentLog.failure("stopping an AsyncHttpClient attempt", t);
        }
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getDeclaringClass() == Object.class) {
            return Proxies.identity(proxy, method, args);
        }
        String name = method.getName();
        if (discarding) {
            return discarded(name, method, args);
        }
        Object handler = request.handler();
        switch (name) {
            case "onStatusReceived":
                status = args[0]; // held back: the application hears it once the headers have decided
                return api.proceed;
            case "onHeadersReceived":
                if (status == null) {
                    break;
                }
                if (decideRetry(status, args[0])) {
                    discarding = true;
                    startDiscard();
                    return api.proceed;
                }
                Object state = api.statusReceived(handler, status);
                if (state != api.proceed) {
                    return state; // the application's handler aborts (or upgrades) at the status line, as it would have
                }
                break;
            case "onThrowable":
                if (silenced || !claimEnd()) {
                    return null;
                }
                break;
            case "onCompleted":
                if (!claimEnd()) {
                    return null; // a cancel told the handler its end first: the request's future is cancelled already
                }
                break;
            default:
                break;
        }
        return Proxies.forward(method, handler, args);
    }

    /** The retried refusal's callbacks: its body counted and dropped, the rest of no interest to the application. */
    private Object discarded(String name, Method method, Object[] args) throws ReflectiveOperationException {
        if (name.equals("onBodyPartReceived")) {
            bytes += api.length(args[0]);
            return bytes > AsyncCall.DISCARD_BYTES ? api.abort : api.proceed; // ABORT closes the connection
        }
        if (name.equals("onCompleted")) {
            CompletableFuture<Void> timer = giveUp;
            if (timer != null) {
                timer.cancel(false);
            }
            return null;
        }
        return method.getReturnType().isInstance(api.proceed) ? api.proceed : null;
    }

    private void startDiscard() {
        CompletableFuture<Void> timer = request.delays().after(AsyncCall.DISCARD_MILLIS);
        giveUp = timer;
        timer.thenRunAsync(new AbandonBody(), AsyncCall.ASYNC);
    }

    /** A refusal's body that stalls: the attempt is aborted, its connection closed, and the retry goes ahead. */
    private final class AbandonBody implements Runnable {
        @Override
        public void run() {
            Object sent = future;
            if (sent != null) {
                try {
                    api.abort(sent, new IOException("retry-after-agent: a refused response's body given up on"));
                } catch (Throwable t) {
                    AgentLog.failure("discarding an AsyncHttpClient refusal", t);
                }
            }
        }
    }

    /** The agent's decision on the status and headers: true to discard the response and send again. */
    private boolean decideRetry(Object responseStatus, Object headers) {
        try {
            return HeaderEntries.decide(request.call(), api.status(responseStatus), (Iterable<?>) headers); // Netty's HttpHeaders
        } catch (Throwable t) {
            AgentLog.failure("deciding on an AsyncHttpClient response", t);
            return false;
        }
    }
}
