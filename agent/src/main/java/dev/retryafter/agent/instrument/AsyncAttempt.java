package dev.retryafter.agent.instrument;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

/**
 * One attempt of an {@link AsyncExchange}: the response consumer standing in front of the application's, which decides
 * on the response head ({@link AsyncExchange#decideRetry}) and then either hands everything through, or discards the
 * refusal: its body read and dropped within {@link AsyncExchange#DISCARD_MILLIS} and
 * {@link AsyncExchange#DISCARD_BYTES}, else the exchange cancelled, which closes its connection. A client's attempt
 * says how its consumer's methods read and drop a body; {@link #outcome} is the attempt's own callback.
 */
public abstract class AsyncAttempt implements InvocationHandler {
    protected final AsyncExchange exchange;
    public final Outcome outcome = new Outcome();
    private volatile boolean discarding;
    private volatile Future<?> sent;
    private volatile CompletableFuture<Void> giveUp;

    protected AsyncAttempt(AsyncExchange exchange) {
        this.exchange = exchange;
    }

    public final boolean discarding() {
        return discarding;
    }

    final void sent(Future<?> future) {
        sent = future;
    }

    /** True, and the refusal's body is to be discarded from now on, when the agent retries {@code response}. */
    protected final boolean refused(Object response) {
        if (!exchange.decideRetry(response)) {
            return false;
        }
        discarding = true;
        return true;
    }

    /** The discard's bound of time begins. */
    protected final void startDiscard() {
        CompletableFuture<Void> timer = exchange.delays.after(AsyncExchange.DISCARD_MILLIS);
        giveUp = timer;
        timer.thenRunAsync(this::abandonBody, AsyncExchange.ASYNC);
    }

    protected final void stopTimer() {
        CompletableFuture<Void> timer = giveUp;
        if (timer != null) {
            timer.cancel(false);
        }
    }

    /** A refusal's body that stalls or runs on: its exchange is cancelled, its connection closed, and the retry goes ahead. */
    protected final void abandonBody() {
        Future<?> future = sent;
        if (future != null) {
            future.cancel(true);
        }
    }

    /** Tells the client's result callback of a discarded refusal that it is over. */
    protected final void completed(Object resultCallback) throws ReflectiveOperationException {
        exchange.completeCallback(resultCallback);
    }

    /** The attempt's own callback, given to the client's {@code execute}. */
    public final class Outcome implements InvocationHandler {
        @Override
        public Object invoke(Object proxy, Method method, Object[] args) {
            if (method.getDeclaringClass() == Object.class) {
                return AsyncExchange.identity(proxy, method, args);
            }
            stopTimer();
            switch (method.getName()) {
                case "completed":
                    exchange.attemptEnded(AsyncAttempt.this, args[0], null, false);
                    break;
                case "failed":
                    exchange.attemptEnded(AsyncAttempt.this, null, (Exception) args[0], false);
                    break;
                default:
                    exchange.attemptEnded(AsyncAttempt.this, null, null, true);
            }
            return null;
        }
    }
}
