package dev.retryafter.agent.instrument.jdk;

import dev.retryafter.agent.instrument.AsyncCall;
import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.CallDepth;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;

/**
 * {@code HttpClient.sendAsync}, governed: each retry is composed on the returned future, with
 * non-blocking waits, so no thread sits asleep. Cancelling the returned future (or completing it,
 * or timing it out) stops the retries, frees the call's place in the host's queue, and aborts the
 * exchange in flight, whose permit goes back when it has ended.
 */
public final class JdkSendAsync {

    private final RetryEngine engine;
    private final CallDepth depth;

    public JdkSendAsync(RetryEngine engine, CallDepth depth) {
        this.engine = engine;
        this.depth = depth;
    }

    /** A future of the final response, or null to let the original method run (nothing was sent yet). */
    public CompletableFuture<? extends HttpResponse<?>> sendAsync(HttpClient client, HttpRequest request, BodyHandler<?> handler,
                                                                  PushPromiseHandler<?> pushPromises) {
        if (depth.isInside() || request == null || handler == null) {
            return null; // a null is the JDK's to refuse, at once, before anything is sent
        }
        Call call = JdkRequests.open(engine, request);
        return call == null ? null : start(client, request, handler, pushPromises, call);
    }

    private <T> CompletableFuture<HttpResponse<T>> start(HttpClient client, HttpRequest request, BodyHandler<T> handler,
                                                         PushPromiseHandler<?> pushPromises, Call call) {
        @SuppressWarnings("unchecked") // the application passed them together, so they agree on T
        PushPromiseHandler<T> typed = (PushPromiseHandler<T>) pushPromises;
        GovernedExchange<T> exchange = new GovernedExchange<>(client, request, handler, typed, call, depth);
        exchange.whenComplete((response, failure) -> exchange.onCompleted());
        exchange.attempt();
        return exchange;
    }

    /**
     * The future the application holds: one attempt after another until a response is final. It alone
     * completes itself; any other completion (a cancel, {@code orTimeout}, {@code complete}) abandons
     * the call and aborts the exchange in flight.
     */
    private static final class GovernedExchange<T> extends AsyncCall<HttpResponse<T>> {
        private final HttpClient client;
        private final HttpRequest request;
        private final BodyHandler<T> handler;
        private final PushPromiseHandler<T> pushPromises;
        private final CallDepth depth;
        private volatile boolean finishedByExchange;

        GovernedExchange(HttpClient client, HttpRequest request, BodyHandler<T> handler, PushPromiseHandler<T> pushPromises,
                         Call call, CallDepth depth) {
            super("java.net.http sendAsync", call);
            this.client = client;
            this.request = request;
            this.handler = handler;
            this.pushPromises = pushPromises;
            this.depth = depth;
        }

        /** The first attempt: its turn, then the attempt, as any later one's. */
        void attempt() {
            next();
        }

        /** Sent on the thread its turn came on, as the JDK's own stages run. */
        @Override
        protected Executor continuations() {
            return COMPLETING_THREAD;
        }

        @Override
        protected void held(HostHeldException held) {
            fail(held);
        }

        /** One attempt; always "sent": a client that threw has failed this future, as its sendAsync would have thrown. */
        @Override
        protected boolean send(boolean atOnce) {
            GovernedBodyHandler<T> governed = new GovernedBodyHandler<>(handler, call);
            CompletableFuture<HttpResponse<T>> sent = sendInside(governed);
            if (sent == null) {
                call.endAttempt();
                return true;
            }
            inFlight = sent;
            if (isDone()) {
                sent.cancel(true); // completed by the application while this was being sent
            }
            sent.whenComplete((response, failure) -> {
                governed.endAttempt();
                Throwable cause = failure == null ? null : unwrap(failure);
                boolean retry = governed.retryRequested() && !isDone();
                // A failure reading the body of a refusal being retried does not stop the retry (see discardedARefusal).
                if (cause != null && !(retry && governed.discardedARefusal() && cause instanceof IOException)) {
                    fail(cause);
                } else if (retry) {
                    next();
                } else {
                    succeed(response);
                }
            });
            return true;
        }

        @Override
        protected void fallBack(Throwable agentFailure) {
            AgentLog.failure("governing a java.net.http sendAsync", agentFailure);
            call.endAttempt();
            CompletableFuture<HttpResponse<T>> plain = sendInside(handler);
            if (plain == null) {
                return;
            }
            inFlight = plain;
            plain.whenComplete((response, failure) -> {
                if (failure != null) {
                    fail(unwrap(failure));
                } else {
                    succeed(response);
                }
            });
        }

        /**
         * The client's own sendAsync, called inside this call, so the facade runs its own body; null
         * when it threw, and then this future has failed with the client's exception, as its
         * sendAsync would have thrown it.
         */
        private CompletableFuture<HttpResponse<T>> sendInside(BodyHandler<T> bodyHandler) {
            Call previous = depth.enter(call);
            try {
                return pushPromises == null ? client.sendAsync(request, bodyHandler) : client.sendAsync(request, bodyHandler, pushPromises);
            } catch (RuntimeException | Error e) {
                fail(e);
                return null;
            } finally {
                depth.restore(previous);
            }
        }

        private void succeed(HttpResponse<T> response) {
            finishedByExchange = true;
            complete(response);
        }

        /**
         * Failures complete on the common pool: they may arrive on the agent's one delay thread, where
         * the application's own stages must not run.
         */
        private void fail(Throwable failure) {
            finishedByExchange = true;
            defaultExecutor().execute(() -> completeExceptionally(failure));
        }

        /** Completed by anyone: if not by the exchange, give up the turn and abort what is in flight. */
        void onCompleted() {
            if (!finishedByExchange) {
                call.abandon();
                Future<?> current = inFlight;
                if (current != null) {
                    current.cancel(true); // only true makes the JDK abort an exchange in flight
                }
            }
        }
    }
}
