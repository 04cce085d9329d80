package dev.retryafter.agent.instrument.jdk;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.CallDepth;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * {@code HttpClient.sendAsync}, governed: each retry is composed on the returned future, with
 * non-blocking waits, so no thread sits asleep. Cancelling the returned future stops the retries,
 * frees the call's place in the host's queue, and cancels the exchange in flight.
 */
public final class JdkSendAsync {

    private final RetryEngine engine;
    private final CallDepth depth;

    public JdkSendAsync(RetryEngine engine, CallDepth depth) {
        this.engine = engine;
        this.depth = depth;
    }

    /** A future of the final response, or null to let the original method run. */
    public CompletableFuture<? extends HttpResponse<?>> sendAsync(HttpClient client, HttpRequest request, BodyHandler<?> handler,
                                                                  PushPromiseHandler<?> pushPromises) {
        if (depth.isInside()) {
            return null;
        }
        Call call = JdkRequests.open(engine, request);
        return call == null ? null : start(client, request, handler, pushPromises, call);
    }

    private <T> CompletableFuture<HttpResponse<T>> start(HttpClient client, HttpRequest request, BodyHandler<T> handler,
                                                         PushPromiseHandler<?> pushPromises, Call call) {
        @SuppressWarnings("unchecked") // the application passed them together, so they agree on T
        PushPromiseHandler<T> typed = (PushPromiseHandler<T>) pushPromises;
        GovernedExchange<T> exchange = new GovernedExchange<>(client, request, handler, typed, call, depth);
        exchange.attempt();
        return exchange;
    }

    /** The future the application holds: one attempt after another until a response is final. */
    private static final class GovernedExchange<T> extends CompletableFuture<HttpResponse<T>> {
        private final HttpClient client;
        private final HttpRequest request;
        private final BodyHandler<T> handler;
        private final PushPromiseHandler<T> pushPromises;
        private final Call call;
        private final CallDepth depth;
        private volatile CompletableFuture<?> stage;

        GovernedExchange(HttpClient client, HttpRequest request, BodyHandler<T> handler, PushPromiseHandler<T> pushPromises,
                         Call call, CallDepth depth) {
            this.client = client;
            this.request = request;
            this.handler = handler;
            this.pushPromises = pushPromises;
            this.call = call;
            this.depth = depth;
        }

        void attempt() {
            CompletableFuture<Void> turn = call.turn();
            stage = turn;
            turn.whenComplete((granted, failure) -> {
                if (failure != null) {
                    completeExceptionally(unwrap(failure));
                } else if (isDone()) {
                    call.endAttempt(); // cancelled while waiting
                } else {
                    send();
                }
            });
        }

        private void send() {
            CompletableFuture<HttpResponse<T>> sent;
            Call previous = depth.enter(call);
            try {
                GovernedBodyHandler<T> governed = new GovernedBodyHandler<>(handler, call);
                sent = pushPromises == null ? client.sendAsync(request, governed) : client.sendAsync(request, governed, pushPromises);
            } catch (RuntimeException | Error e) {
                call.endAttempt();
                completeExceptionally(e);
                return;
            } finally {
                depth.restore(previous);
            }
            stage = sent;
            sent.whenComplete((response, failure) -> {
                call.endAttempt();
                if (failure != null) {
                    completeExceptionally(unwrap(failure));
                } else if (call.retryRequested() && !isDone()) {
                    attempt();
                } else {
                    complete(response);
                }
            });
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            if (cancelled) {
                call.abandon();
                CompletableFuture<?> current = stage;
                if (current != null) {
                    current.cancel(mayInterruptIfRunning);
                }
            }
            return cancelled;
        }

        private static Throwable unwrap(Throwable failure) {
            return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        }
    }
}
