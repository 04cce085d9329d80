package dev.retryafter.agent.instrument.apache4async;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.Delays;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.AsyncAttempt;
import dev.retryafter.agent.instrument.AsyncExchange;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.AsyncCall;
import dev.retryafter.agent.instrument.AsyncCallHook;
import dev.retryafter.agent.instrument.Proxies;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.concurrent.Future;

/**
 * Apache HttpAsyncClient 4.1's {@code execute}, governed: the application gets a future of the agent's
 * ({@link GovernedExchange}) at once, and the agent runs the client's own {@code execute} for each attempt, once its
 * turn has come, with no thread asleep. Each attempt's response consumer is the agent's ({@link Attempt}): it decides
 * on the final response's head (after the client's own redirects and authentication) before the application's
 * consumer sees it; a refusal the agent retries is discarded (its body read within a bound of time and bytes, else the
 * exchange cancelled, which closes its connection) and the request is sent again, only from a producer that says it is
 * repeatable (an entity that is, or none). The application's consumer, producer, callback and future get the final
 * attempt alone: a discarded attempt neither fails nor closes them. HttpAsyncClient 4.1 has no retry of statuses of its
 * own, so nothing retries beneath the agent.
 *
 * <p>The client's types are reached by reflection, through the interfaces its own {@code execute} names, and the
 * agent stands in for the producer, consumer and callback with proxies of those interfaces.
 */
public final class Apache4AsyncCalls extends AsyncCallHook<Apache4AsyncCalls.Shape> {

    /** {@code execute}'s hook: its arguments, the client, then the producer, consumer, context and callback. */
    public Apache4AsyncCalls(RetryEngine engine, CallDepth depth) {
        super("apache4async.execute", "an HttpAsyncClient 4", engine, depth);
    }

    @Override
    protected Shape shapeOf(Class<?> clientType) throws ReflectiveOperationException {
        return new Shape(Proxies.declared(clientType, "execute", ".HttpAsyncRequestProducer", null, null, null));
    }

    /** The call to the producer's target; none for a request with no target, which the client fails, or routes, as it always did. */
    @Override
    protected Call callFor(Shape shape, Object[] a) throws ReflectiveOperationException {
        if (a[1] == null || a[2] == null) {
            return null; // no producer or consumer: the client's to fail
        }
        Object producer = a[1];
        Object target = shape.getTarget.invoke(producer);
        if (target == null) {
            return null;
        }
        Object[] endpoint = shape.endpoint(target);
        return open((String) endpoint[0], (String) endpoint[1], (Integer) endpoint[2], (Boolean) shape.isRepeatable.invoke(producer));
    }

    @Override
    protected AsyncCall<?> governed(Shape shape, Call call, Object client, Object[] arguments) {
        return new GovernedExchange(shape, call, depth, engine.delays(), client, arguments);
    }

    /** The client's types and methods, as its own {@code execute} names them; found once per client class. */
    static final class Shape extends AsyncExchange.ClientShape {
        final Class<?> producerType;
        final Method getTarget;
        final Method isRepeatable;
        final Method resetRequest;
        final Method producerClose;
        final Method consumerFailed;
        final Method consumerClose;
        private final Proxies.FoundAtFirstUse decoderRead = new Proxies.FoundAtFirstUse("read", ByteBuffer.class);

        /** {@code execute(producer, consumer, context, callback)}. */
        Shape(Method execute) throws ReflectiveOperationException {
            super(execute, 1, 3, "getAllHeaders", "getStatusLine", "getStatusCode");
            producerType = execute.getParameterTypes()[0];
            getTarget = producerType.getMethod("getTarget");
            isRepeatable = producerType.getMethod("isRepeatable");
            resetRequest = producerType.getMethod("resetRequest");
            producerClose = producerType.getMethod("close");
            consumerFailed = consumerType.getMethod("failed", Exception.class);
            consumerClose = consumerType.getMethod("close");
        }

        /** {@code ContentDecoder.read(ByteBuffer)}: the bytes read, -1 at the body's end. */
        int read(Object decoder, ByteBuffer into) throws ReflectiveOperationException {
            return (Integer) decoderRead.invoke(decoder, into);
        }
    }

    /** The future the application holds ({@link AsyncExchange}); a later attempt resets the application's producer first. */
    static final class GovernedExchange extends AsyncExchange {
        private final Shape shape;
        /** Whether an attempt went out with the application's producer and consumer: a later one resets the producer first. */
        private volatile boolean sentOnce;

        /** {@code arguments}: {@code execute}'s, producer, consumer, context, callback. */
        GovernedExchange(Shape shape, Call call, CallDepth depth, Delays delays, Object client, Object[] arguments) {
            super("Apache async 4", call, depth, delays, shape, client, arguments);
            this.shape = shape;
        }

        Object producer() {
            return arguments[0];
        }

        @Override
        protected AsyncAttempt<?> newAttempt() {
            return new Attempt(this);
        }

        @Override
        protected Object[] prepare(AsyncAttempt<?> attempt) throws Exception {
            if (sentOnce) {
                shape.resetRequest.invoke(producer()); // a repeatable producer, back at its start
            }
            Object[] attemptArguments = super.prepare(attempt);
            attemptArguments[0] = Proxy.newProxyInstance(shape.loader, new Class<?>[] {shape.producerType}, ((Attempt) attempt).producer);
            return attemptArguments;
        }

        @Override
        protected Future<?> execute(Object[] executeArguments) throws Exception {
            Future<?> sent = super.execute(executeArguments);
            sentOnce = true;
            return sent;
        }

        @Override
        protected Future<?> executePlain(Object callbackProxy) throws Exception {
            if (sentOnce) {
                shape.resetRequest.invoke(producer());
            }
            return super.executePlain(callbackProxy);
        }

        /**
         * A failure no attempt in flight has told the application's consumer and producer of: they hear it and are
         * closed, as the client does with a failed exchange; the future and callback are told on another thread.
         */
        @Override
        protected void failUnsent(Exception failure) {
            ASYNC.execute(() -> {
                quietly(shape.consumerFailed, consumer(), failure);
                quietly(shape.consumerClose, consumer());
                quietly(shape.producerClose, producer());
                failHere(failure);
            });
        }

        private static void quietly(Method method, Object target, Object... args) {
            try {
                method.invoke(target, args);
            } catch (ReflectiveOperationException | RuntimeException e) {
                AgentLog.logger().debug("the application's consumer or producer threw", e);
            }
        }
    }

    /**
     * One attempt's response consumer ({@link AsyncAttempt}): decides at the final response's head
     * ({@code responseReceived}, after the client's own redirects and authentication); a discarded refusal's body is
     * read and dropped. The application's consumer and producer hear nothing of a discarded refusal: not its
     * {@code failed}, not its {@code close}.
     */
    static final class Attempt extends AsyncAttempt<GovernedExchange> {
        final Producer producer = new Producer();
        /** The discarded body ran past its bound: the consumer says it is done, and the client drops the connection. */
        private volatile boolean overBound;
        private long bytes;
        private ByteBuffer scratch;

        Attempt(GovernedExchange exchange) {
            super(exchange, "responseReceived", 1);
        }

        @Override
        protected void discardFrom(Object[] args) {
            startDiscard();
        }

        @Override
        protected Object discarded(String name, Object[] args) throws ReflectiveOperationException {
            switch (name) {
                case "consumeContent":
                    drain(args[0]);
                    return null;
                case "isDone":
                    return overBound;
                case "cancel":
                    return Boolean.TRUE;
                case "responseCompleted":
                    stopTimer();
                    return null;
                default: // getResult, getException: none; failed, close: the refusal's, not the application's
                    return null;
            }
        }

        private void drain(Object decoder) throws ReflectiveOperationException {
            if (scratch == null) {
                scratch = ByteBuffer.allocate(8 * 1024);
            }
            for (;;) {
                scratch.clear();
                int read = exchange.shape.read(decoder, scratch);
                if (read <= 0) {
                    return;
                }
                bytes += read;
                if (bytes > AsyncExchange.DISCARD_BYTES) {
                    overBound = true; // the client cancels the exchange and closes its connection
                    return;
                }
            }
        }

        /** The application's producer for this attempt: all of it, but the close and failure of a discarded attempt. */
        final class Producer implements InvocationHandler {
            @Override
            public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
                if (method.getDeclaringClass() == Object.class) {
                    return Proxies.identity(proxy, method, args);
                }
                if (discarding() && (method.getName().equals("close") || method.getName().equals("failed"))) {
                    return null;
                }
                return Proxies.forward(method, exchange.producer(), args);
            }
        }
    }
}
