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
public abstract class AsyncAttempt<E extends AsyncExchange> implements InvocationHandler {
    protected final E exchange;
    /** The consumer's method that hands over a response head, its first argument, and how many it takes. */
    private final String head;
    private final int headArity;
    public final Outcome outcome = new Outcome();
    private volatile boolean discarding;
    private volatile Future<?> sent;
    private volatile CompletableFuture<Void> giveUp;

    protected AsyncAttempt(E exchange, String head, int headArity) {
        this.exchange = exchange;
        this.head = head;
        this.headArity = headArity;
    }

    /**
     * The consumer's methods: the application's consumer's until the agent retries a refusal, then the discard's. Its
     * {@code Object} methods are the proxy's own.
     */
    @Override
    public final Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getDeclaringClass() == Object.class) {
            return Proxies.identity(proxy, method, args);
        }
        if (discarding()) {
            return discarded(method.getName(), args);
        }
        if (method.getName().equals(head) && args != null && args.length == headArity && refused(args[0])) {
            discardFrom(args);
            return null;
        }
        return Proxies.forward(method, exchange.consumer(), args);
    }

    /** The head of a refusal the agent retries has come, with {@code args}: its discard begins. */
    protected abstract void discardFrom(Object[] args) throws ReflectiveOperationException;

    /** A call on the consumer of a refusal being discarded: the application's consumer hears nothing of it. */
    protected abstract Object discarded(String name, Object[] args) throws ReflectiveOperationException;

    public final boolean discarding() {
        return discarding;
    }

    final void sent(Future<?> future) {
        sent = future;
    }

    /** True, and the refusal's body is to be discarded from now on, when the agent retries {@code response}. */
    private boolean refused(Object response) {
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
                return Proxies.identity(proxy, method, args);
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
