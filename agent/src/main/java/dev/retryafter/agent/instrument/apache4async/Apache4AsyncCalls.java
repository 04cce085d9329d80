package dev.retryafter.agent.instrument.apache4async;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.Delays;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.AsyncAttempt;
import dev.retryafter.agent.instrument.AsyncExchange;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.Endpoint;
import dev.retryafter.agent.instrument.ModuleHooks;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
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
public final class Apache4AsyncCalls implements ModuleHooks {

    /** {@code execute}'s arguments: client, producer, consumer, context, callback. */
    public static final String EXECUTE = "apache4async.execute";

    private static final ClassValue<Shape> SHAPES = new ClassValue<Shape>() {
        @Override
        protected Shape computeValue(Class<?> clientType) {
            try {
                return new Shape(clientType);
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new IllegalStateException("not an HttpAsyncClient 4 of a known shape: " + clientType.getName(), e);
            }
        }
    };

    private final RetryEngine engine;
    private final CallDepth depth;

    public Apache4AsyncCalls(RetryEngine engine, CallDepth depth) {
        this.engine = engine;
        this.depth = depth;
    }

    @Override
    public String[] hooks() {
        return new String[] {EXECUTE};
    }

    @Override
    public Object call(String hook, Object[] a, NewCalls newCalls) {
        return newCalls.governed() ? execute(a[0], a[1], a[2], a[3], a[4]) : null;
    }

    /** A future of the final outcome, or null to let the original method run (nothing was sent yet). */
    public Object execute(Object client, Object producer, Object consumer, Object context, Object callback) {
        if (depth.isInside()) {
            return null; // the agent's own attempt, or a call made inside a governed one: governed once, by the outer one
        }
        Shape shape;
        Call call;
        try {
            shape = SHAPES.get(client.getClass());
            Object target = shape.getTarget.invoke(producer);
            if (target == null) {
                return null; // no host to govern: the client fails it, or routes it, as it always did
            }
            boolean repeatable = (Boolean) shape.isRepeatable.invoke(producer);
            String scheme = shape.scheme(target);
            call = engine.open(Endpoint.host(shape.hostName(target)), Endpoint.port(scheme, shape.port(target)), repeatable);
        } catch (InvocationTargetException e) {
            return null; // the application's producer threw: the client's own execute meets it as it always did
        } catch (Throwable t) {
            AgentLog.failure("opening an Apache async 4 call", t);
            return null;
        }
        GovernedExchange exchange = new GovernedExchange(shape, call, depth, engine.delays(), client, producer, consumer, context, callback);
        return exchange.first() ? exchange : null;
    }

    /** The client's types and methods, as its own {@code execute} names them; found once per client class. */
    static final class Shape extends AsyncExchange.ResponseHeads {
        final Method execute;
        final Class<?> producerType;
        final Class<?> consumerType;
        final Class<?> callbackType;
        final ClassLoader loader;
        final Method getTarget;
        final Method isRepeatable;
        final Method resetRequest;
        final Method producerClose;
        final Method consumerFailed;
        final Method consumerClose;
        final Method completed;
        final Method failed;
        final Method cancelled;
        /** Found at first use: the classes are the client's too, but its {@code execute} does not name them. */
        private volatile Method getSchemeName;
        private volatile Method getHostName;
        private volatile Method getPort;
        private volatile Method getStatusLine;
        private volatile Method getStatusCode;
        private volatile Method getAllHeaders;
        private volatile Method decoderRead;

        Shape(Class<?> clientType) throws ReflectiveOperationException {
            Method found = null;
            for (Class<?> type = clientType; type != null && found == null; type = type.getSuperclass()) {
                for (Method method : type.getDeclaredMethods()) {
                    Class<?>[] parameters = method.getParameterTypes();
                    if (method.getName().equals("execute") && parameters.length == 4
                            && parameters[0].getName().endsWith(".HttpAsyncRequestProducer") && Modifier.isPublic(method.getModifiers())
                            && !Modifier.isAbstract(method.getModifiers())) {
                        found = method;
                        break;
                    }
                }
            }
            if (found == null) {
                throw new NoSuchMethodException("execute(HttpAsyncRequestProducer, ...) on " + clientType.getName());
            }
            execute = found;
            execute.setAccessible(true); // the client classes are package-private
            Class<?>[] parameters = execute.getParameterTypes();
            producerType = parameters[0];
            consumerType = parameters[1];
            callbackType = parameters[3];
            loader = consumerType.getClassLoader();
            getTarget = producerType.getMethod("getTarget");
            isRepeatable = producerType.getMethod("isRepeatable");
            resetRequest = producerType.getMethod("resetRequest");
            producerClose = producerType.getMethod("close");
            consumerFailed = consumerType.getMethod("failed", Exception.class);
            consumerClose = consumerType.getMethod("close");
            completed = callbackType.getMethod("completed", Object.class);
            failed = callbackType.getMethod("failed", Exception.class);
            cancelled = callbackType.getMethod("cancelled");
        }

        String scheme(Object target) throws ReflectiveOperationException {
            if (getSchemeName == null) {
                getPort = AsyncExchange.publicMethod(target.getClass(), "getPort");
                getHostName = AsyncExchange.publicMethod(target.getClass(), "getHostName");
                getSchemeName = AsyncExchange.publicMethod(target.getClass(), "getSchemeName");
            }
            return (String) getSchemeName.invoke(target);
        }

        String hostName(Object target) throws ReflectiveOperationException {
            return (String) getHostName.invoke(target);
        }

        int port(Object target) throws ReflectiveOperationException {
            return (Integer) getPort.invoke(target);
        }

        @Override
        public int status(Object response) throws ReflectiveOperationException {
            if (getStatusCode == null) {
                getStatusLine = AsyncExchange.publicMethod(response.getClass(), "getStatusLine");
                getStatusCode = AsyncExchange.publicMethod(getStatusLine.getReturnType(), "getStatusCode");
            }
            return (Integer) getStatusCode.invoke(getStatusLine.invoke(response));
        }

        @Override
        public Object[] headers(Object response) throws ReflectiveOperationException {
            if (getAllHeaders == null) {
                getAllHeaders = AsyncExchange.publicMethod(response.getClass(), "getAllHeaders");
            }
            return (Object[]) getAllHeaders.invoke(response);
        }

        /** {@code ContentDecoder.read(ByteBuffer)}: the bytes read, -1 at the body's end. */
        int read(Object decoder, ByteBuffer into) throws ReflectiveOperationException {
            if (decoderRead == null) {
                decoderRead = AsyncExchange.publicMethod(decoder.getClass(), "read", ByteBuffer.class);
            }
            return (Integer) decoderRead.invoke(decoder, into);
        }
    }

    /** The future the application holds ({@link AsyncExchange}); a later attempt resets the application's producer first. */
    static final class GovernedExchange extends AsyncExchange {
        private final Shape shape;
        private final Object client;
        private final Object producer;
        private final Object consumer;
        private final Object context;
        /** Whether an attempt went out with the application's producer and consumer: a later one resets the producer first. */
        private volatile boolean sentOnce;

        GovernedExchange(Shape shape, Call call, CallDepth depth, Delays delays, Object client, Object producer, Object consumer,
                         Object context, Object callback) {
            super("Apache async 4", call, depth, delays, shape.loader, shape.callbackType, callback, shape.completed, shape.failed,
                    shape.cancelled, shape);
            this.shape = shape;
            this.client = client;
            this.producer = producer;
            this.consumer = consumer;
            this.context = context;
        }

        @Override
        protected AsyncAttempt newAttempt() {
            return new Attempt(this);
        }

        @Override
        protected Object prepare(AsyncAttempt attempt) throws Exception {
            if (sentOnce) {
                shape.resetRequest.invoke(producer); // a repeatable producer, back at its start
            }
            return new Object[] {
                Proxy.newProxyInstance(shape.loader, new Class<?>[] {shape.producerType}, ((Attempt) attempt).producer),
                Proxy.newProxyInstance(shape.loader, new Class<?>[] {shape.consumerType}, attempt),
                callbackProxy(attempt.outcome)};
        }

        @Override
        protected Future<?> execute(Object prepared) throws Exception {
            Object[] proxies = (Object[]) prepared;
            Future<?> sent = (Future<?>) shape.execute.invoke(client, proxies[0], proxies[1], context, proxies[2]);
            sentOnce = true;
            return sent;
        }

        @Override
        protected Future<?> executePlain(Object callbackProxy) throws Exception {
            if (sentOnce) {
                shape.resetRequest.invoke(producer);
            }
            return (Future<?>) shape.execute.invoke(client, producer, consumer, context, callbackProxy);
        }

        /**
         * A failure no attempt in flight has told the application's consumer and producer of: they hear it and are
         * closed, as the client does with a failed exchange; the future and callback are told on another thread.
         */
        @Override
        protected void failUnsent(Exception failure) {
            ASYNC.execute(() -> {
                quietly(shape.consumerFailed, consumer, failure);
                quietly(shape.consumerClose, consumer);
                quietly(shape.producerClose, producer);
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
    static final class Attempt extends AsyncAttempt {
        private final GovernedExchange governed;
        final Producer producer = new Producer();
        /** The discarded body ran past its bound: the consumer says it is done, and the client drops the connection. */
        private volatile boolean overBound;
        private long bytes;
        private ByteBuffer scratch;

        Attempt(GovernedExchange exchange) {
            super(exchange);
            this.governed = exchange;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            if (method.getDeclaringClass() == Object.class) {
                return AsyncExchange.identity(proxy, method, args);
            }
            String name = method.getName();
            if (name.equals("responseReceived") && args != null && args.length == 1 && refused(args[0])) {
                startDiscard();
                return null;
            }
            if (!discarding()) {
                return AsyncExchange.forward(method, governed.consumer, args);
            }
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
                int read = governed.shape.read(decoder, scratch);
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
                    return AsyncExchange.identity(proxy, method, args);
                }
                if (discarding() && (method.getName().equals("close") || method.getName().equals("failed"))) {
                    return null;
                }
                return AsyncExchange.forward(method, governed.producer, args);
            }
        }
    }
}
