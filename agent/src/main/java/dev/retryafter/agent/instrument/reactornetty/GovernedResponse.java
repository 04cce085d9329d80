package dev.retryafter.agent.instrument.reactornetty;

import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.AsyncExchange;
import dev.retryafter.agent.report.Turns;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The agent's {@code Mono} of a request's response, as the supplier {@code Mono.defer} asks at each subscription: each
 * subscription is one request as the application made it (a {@code retry()} of the application's is a new one), with a
 * {@link Call} of its own, through its attempts. An attempt is a subscription to the client's own cold {@code Mono},
 * once its turn has come; its response is decided on at its headers (on Netty's event loop, where nothing waits), and
 * either handed on, its permit kept until its exchange is over, or closed and the next attempt's turn taken. A wait
 * is the engine's scheduled continuation, resumed on the agent's executor, never Netty's thread. Any failure of the
 * agent's hands the client's own {@code Mono} on, as it would have been without the agent.
 */
final class GovernedResponse implements Supplier<Object> {

    private final ReactorApi api;
    private final RetryEngine engine;
    private final BooleanSupplier governs;
    private final String host;
    private final int port;
    private final boolean replayable;
    private final Object plain;

    GovernedResponse(ReactorApi api, RetryEngine engine, BooleanSupplier governs, String host, int port, boolean replayable,
                     Object plain) {
        this.api = api;
        this.engine = engine;
        this.governs = governs;
        this.host = host;
        this.port = port;
        this.replayable = replayable;
        this.plain = plain;
    }

    /** One subscription: the governed request, or the client's own {@code Mono} when the agent is off or fails here. */
    @Override
    public Object get() {
        try {
            if (!governs.getAsBoolean()) {
                return plain;
            }
            Request request = new Request(engine.open(host, port, replayable));
            return api.doOnCancel(request.attempt(), request);
        } catch (Throwable t) {
            ReactorNettyCalls.failure("governing a Reactor Netty request", t);
            return plain;
        }
    }

    /** One request through its attempts; as a {@code Runnable}, what the application's cancel does. */
    private final class Request implements Runnable {
        private final Call call;
        /** A response was handed on (or the plain call went): its exchange, not a cancel, ends the attempt. */
        private volatile boolean handed;

        Request(Call call) {
            this.call = call;
        }

        /** This attempt and those after it: the turn, then the client's {@code Mono}, then the decision. */
        Object attempt() throws ReflectiveOperationException {
            CompletableFuture<Boolean> go = new CompletableFuture<>();
            CompletableFuture<Void> turn;
            try {
                turn = Turns.start(call);
            } catch (RuntimeException e) {
                ReactorNettyCalls.failure("taking a Reactor Netty turn", e);
                call.endAttempt();
                go.complete(Boolean.FALSE);
                return api.flatMap(api.fromFuture(go), new Send());
            }
            TurnCame came = new TurnCame(go);
            if (turn.isDone()) {
                turn.whenComplete(came); // no wait: on the subscribing thread, as the client's own Mono would run
            } else {
                turn.whenCompleteAsync(came, AsyncExchange.ASYNC);
            }
            return api.flatMap(api.fromFuture(go), new Send());
        }

        /** The application cancelled: the request leaves the host's queue, its wait ends, the attempt in flight is over. */
        @Override
        public void run() {
            call.abandon();
            if (!handed) {
                call.endAttempt();
            }
        }

        /** True: the attempt goes, governed; false: the agent failed, and the client's own {@code Mono} goes as it is. */
        private final class TurnCame implements BiConsumer<Void, Throwable> {
            private final CompletableFuture<Boolean> go;

            TurnCame(CompletableFuture<Boolean> go) {
                this.go = go;
            }

            @Override
            public void accept(Void granted, Throwable failure) {
                if (failure == null) {
                    go.complete(Boolean.TRUE);
                    return;
                }
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
                if (cause instanceof HostHeldException || cause instanceof CancellationException) {
                    go.completeExceptionally(cause); // a held host fails the request; a cancel was the application's
                } else {
                    ReactorNettyCalls.failure("waiting for a Reactor Netty request's turn", cause);
                    call.endAttempt();
                    go.complete(Boolean.FALSE);
                }
            }
        }

        /** The turn came: one subscription to the client's own {@code Mono}. */
        private final class Send implements Function<Object, Object> {
            @Override
            public Object apply(Object governed) {
                if (Boolean.TRUE.equals(governed)) {
                    try {
                        return api.flatMap(api.doOnError(plain, new AttemptFailed()), new Decide());
                    } catch (Throwable t) {
                        ReactorNettyCalls.failure("sending a Reactor Netty request", t);
                        call.endAttempt();
                    }
                }
                handed = true;
                return plain;
            }
        }

        /** The attempt failed before its response: its permit goes back, the failure is the application's. */
        private final class AttemptFailed implements Consumer<Throwable> {
            @Override
            public void accept(Throwable failure) {
                call.endAttempt();
            }
        }

        /** At the response's headers: handed on, or closed and sent again. */
        private final class Decide implements Function<Object, Object> {
            @Override
            public Object apply(Object response) {
                if (retried(response)) {
                    try {
                        return attempt();
                    } catch (Throwable t) {
                        ReactorNettyCalls.failure("sending a Reactor Netty request again", t);
                        handed = true;
                        return plain; // the refusal is gone: the request goes once more as the client alone sends it
                    }
                }
                handed = true;
                try {
                    api.whenOver(response, new Ended());
                } catch (Throwable t) {
                    ReactorNettyCalls.failure("watching a Reactor Netty exchange", t);
                    call.endAttempt();
                }
                try {
                    return api.just(response);
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e); // Mono.just was found with the rest: not reached
                }
            }
        }

        /** True when the response is a refusal the agent retries: it is closed, its permit back, the next turn taken. */
        private boolean retried(Object response) {
            boolean retry;
            try {
                int status = api.status(response);
                boolean offer = call.wantsHeaders(status);
                String retryAfter = null;
                if (offer || status >= AgentHooks.LOWEST_REFUSAL) {
                    for (Object header : api.headers(response)) {
                        String name = ReactorApi.header(header, true);
                        if (offer) {
                            call.offerHeader(name, ReactorApi.header(header, false));
                        }
                        if (retryAfter == null && name.equalsIgnoreCase("Retry-After")) {
                            retryAfter = ReactorApi.header(header, false);
                        }
                    }
                }
                retry = call.onResponse(status, status >= AgentHooks.LOWEST_REFUSAL ? retryAfter : null);
            } catch (Throwable t) {
                ReactorNettyCalls.failure("deciding on a Reactor Netty response", t);
                return false;
            }
            if (!retry) {
                return false;
            }
            try {
                api.close(response);
            } catch (Throwable t) {
                ReactorNettyCalls.failure("closing a refused Reactor Netty response", t);
            }
            call.endAttempt();
            return true;
        }

        /** The handed exchange is over: its permit goes back. */
        private final class Ended implements ReactorApi.ExchangeEnded {
            @Override
            public void accept(Object ignored) {
                call.endAttempt();
            }

            @Override
            public void run() {
                call.endAttempt();
            }
        }
    }
}
