package dev.retryafter.agent.instrument.apache5async;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.Delays;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.AsyncAttempt;
import dev.retryafter.agent.instrument.AsyncExchange;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.Endpoint;
import dev.retryafter.agent.instrument.ModuleHooks;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.concurrent.Future;

/**
 * Apache HttpAsyncClient 5's {@code execute}, governed: the application gets a future of the agent's
 * ({@link GovernedExchange}) at once, and the agent runs the client's own {@code execute} for each attempt,
 * once its turn has come, with no thread asleep. Each attempt's response consumer is the agent's
 * ({@link AttemptConsumer}): it decides on the response head before the application's consumer sees it; a
 * refusal the agent retries is discarded (its body read within a bound of time and bytes, or the exchange
 * cancelled, which closes its connection) and the request is sent again, only from a producer that says it is
 * repeatable. The application's consumer, callback and future get the final outcome alone.
 *
 * <p>The agent cannot name the client's types (an application's class loader has them, or a fat jar's
 * relocation): it reaches them by reflection, through the interfaces of the client's own {@code execute}, and
 * stands in for the consumer and callbacks with proxies of those interfaces.
 */
public final class Apache5AsyncCalls implements ModuleHooks {

    /** {@code doExecute}'s arguments: client, target, producer, consumer, pushHandlerFactory, context, callback. */
    public static final String EXECUTE = "apache5async.execute";

    private static final ClassValue<Shape> SHAPES = new ClassValue<Shape>() {
        @Override
        protected Shape computeValue(Class<?> clientType) {
            try {
                return new Shape(clientType);
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new IllegalStateException("not an HttpAsyncClient 5 of a known shape: " + clientType.getName(), e);
            }
        }
    };

    private final RetryEngine engine;
    private final CallDepth depth;

    public Apache5AsyncCalls(RetryEngine engine, CallDepth depth) {
        this.engine = engine;
        this.depth = depth;
    }

    @Override
    public String[] hooks() {
        return new String[] {EXECUTE};
    }

    @Override
    public Object call(String hook, Object[] a, NewCalls newCalls) {
        return newCalls.governed() ? execute(a[0], a[1], a[2], a[3], a[4], a[5], a[6]) : null;
    }

    /** A future of the final outcome, or null to let the original method run (nothing was sent yet). */
    public Object execute(Object client, Object target, Object producer, Object consumer, Object pushHandlerFactory,
                          Object context, Object callback) {
        if (depth.isInside()) {
            return null; // the agent's own attempt, or a call made inside a governed one: governed once, by the outer one
        }
        Shape shape;
        Call call;
        try {
            shape = SHAPES.get(client.getClass());
            boolean repeatable = (Boolean) shape.isRepeatable.invoke(producer);
            Object[] endpoint = shape.endpoint(target, producer, context, repeatable);
            if (endpoint == null) {
                return null;
            }
            String scheme = (String) endpoint[0];
            call = engine.open(Endpoint.host((String) endpoint[1]), Endpoint.port(scheme, (Integer) endpoint[2]), repeatable);
        } catch (InvocationTargetException e) {
            return null; // the application's producer threw: the client's own execute meets it as it always did
        } catch (Throwable t) {
            AgentLog.failure("opening an Apache async call", t);
            return null;
        }
        GovernedExchange exchange = new GovernedExchange(shape, call, depth, engine.delays(), client, target, producer, consumer, pushHandlerFactory,
                context, callback);
        return exchange.first() ? exchange : null;
    }

    /** The client's types and methods, as its own {@code execute} names them; found once per client class. */
    static final class Shape extends AsyncExchange.ResponseHeads {
        final Method execute;
        final Class<?> consumerType;
        final Class<?> callbackType;
        final ClassLoader loader;
        final Method isRepeatable;
        final Method sendRequest;
        final Class<?> channelType;
        final Method setAttribute;
        final Method getAttribute;
        final Method removeAttribute;
        final Method completed;
        final Method failed;
        final Method cancelled;
        /** Found at the first response: its classes are the client's too, but no method names them. */
        private volatile Method getCode;
        private volatile Method getHeaders;
        private volatile Method getHostName;
        private volatile Method getPort;
        private volatile Method getSchemeName;
        private volatile Method getUri;
        private volatile Method capacityUpdate;

        Shape(Class<?> clientType) throws ReflectiveOperationException {
            Method found = null;
            for (Class<?> type = clientType; type != null && found == null; type = type.getSuperclass()) {
                for (Method method : type.getDeclaredMethods()) {
                    Class<?>[] parameters = method.getParameterTypes();
                    if (method.getName().equals("execute") && parameters.length == 6 && parameters[0].getName().endsWith(".HttpHost")
                            && java.lang.reflect.Modifier.isPublic(method.getModifiers())) {
                        found = method;
                        break;
                    }
                }
            }
            if (found == null) {
                throw new NoSuchMethodException("execute(HttpHost, AsyncRequestProducer, ...) on " + clientType.getName());
            }
            execute = found;
            execute.setAccessible(true);
            Class<?>[] parameters = execute.getParameterTypes();
            Class<?> producerType = parameters[1];
            consumerType = parameters[2];
            Class<?> contextType = parameters[4];
            callbackType = parameters[5];
            loader = consumerType.getClassLoader();
            isRepeatable = producerType.getMethod("isRepeatable");
            Method send = null;
            for (Method method : producerType.getMethods()) {
                if (method.getName().equals("sendRequest") && method.getParameterCount() == 2) {
                    send = method;
                }
            }
            if (send == null) {
                throw new NoSuchMethodException("sendRequest on " + producerType.getName());
            }
            sendRequest = send;
            channelType = send.getParameterTypes()[0];
            setAttribute = contextType.getMethod("setAttribute", String.class, Object.class);
            getAttribute = contextType.getMethod("getAttribute", String.class);
            removeAttribute = contextType.getMethod("removeAttribute", String.class);
            completed = callbackType.getMethod("completed", Object.class);
            failed = callbackType.getMethod("failed", Exception.class);
            cancelled = callbackType.getMethod("cancelled");
        }

        /**
         * {@code {scheme, host, port}} of the request, or null when the agent cannot tell before it is sent: from the
         * target when the application named one, else from the request head the producer hands to a channel of the
         * agent's. A producer is asked for it only when it will be asked again (repeatable), or is the client's own
         * {@code BasicRequestProducer}, which only hands over what it holds.
         */
        Object[] endpoint(Object target, Object producer, Object context, boolean repeatable) throws ReflectiveOperationException {
            if (target != null) {
                if (getHostName == null) {
                    getSchemeName = target.getClass().getMethod("getSchemeName");
                    getPort = target.getClass().getMethod("getPort");
                    getHostName = target.getClass().getMethod("getHostName");
                }
                return new Object[] {getSchemeName.invoke(target), getHostName.invoke(target), getPort.invoke(target)};
            }
            if (!repeatable && !isBasicProducer(producer.getClass())) {
                return null;
            }
            Object[] head = new Object[1];
            Object channel = Proxy.newProxyInstance(loader, new Class<?>[] {channelType}, (proxy, method, args) -> {
                if (method.getDeclaringClass() == Object.class) {
                    return AsyncExchange.identity(proxy, method, args);
                }
                if (method.getName().equals("sendRequest") && args != null && args.length > 0) {
                    head[0] = args[0];
                }
                return null;
            });
            sendRequest.invoke(producer, channel, context);
            if (head[0] == null) {
                return null;
            }
            if (getUri == null) {
                getUri = AsyncExchange.publicMethod(head[0].getClass(), "getUri");
            }
            URI uri = (URI) getUri.invoke(head[0]);
            if (uri == null || uri.getHost() == null || uri.getScheme() == null) {
                return null;
            }
            return new Object[] {uri.getScheme(), uri.getHost(), uri.getPort()};
        }

        private static boolean isBasicProducer(Class<?> type) {
            for (Class<?> c = type; c != null; c = c.getSuperclass()) {
                if (c.getName().endsWith(".BasicRequestProducer")) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public int status(Object response) throws ReflectiveOperationException {
            if (getCode == null) {
                getCode = AsyncExchange.publicMethod(response.getClass(), "getCode");
            }
            return (Integer) getCode.invoke(response);
        }

        @Override
        public Object[] headers(Object response) throws ReflectiveOperationException {
            if (getHeaders == null) {
                getHeaders = AsyncExchange.publicMethod(response.getClass(), "getHeaders");
            }
            return (Object[]) getHeaders.invoke(response);
        }

        void updateCapacity(Object capacityChannel, int increment) throws ReflectiveOperationException {
            if (capacityUpdate == null) {
                capacityUpdate = AsyncExchange.publicMethod(capacityChannel.getClass(), "update", int.class);
            }
            capacityUpdate.invoke(capacityChannel, increment);
        }
    }

    /** The future the application holds ({@link AsyncExchange}), the context naming its call while it runs. */
    static final class GovernedExchange extends AsyncExchange {
        private final Shape shape;
        private final Object client;
        private final Object target;
        private final Object producer;
        private final Object consumer;
        private final Object pushHandlerFactory;
        private final Object context;

        GovernedExchange(Shape shape, Call call, CallDepth depth, Delays delays, Object client, Object target, Object producer,
                         Object consumer, Object pushHandlerFactory, Object context, Object callback) {
            super("Apache async", call, depth, delays, shape.loader, shape.callbackType, callback, shape.completed, shape.failed,
                    shape.cancelled, shape);
            this.shape = shape;
            this.client = client;
            this.target = target;
            this.producer = producer;
            this.consumer = consumer;
            this.pushHandlerFactory = pushHandlerFactory;
            this.context = context;
        }

        @Override
        protected AsyncAttempt newAttempt() {
            return new AttemptConsumer(this);
        }

        @Override
        protected Object prepare(AsyncAttempt attempt) throws Exception {
            Object consumerProxy = Proxy.newProxyInstance(shape.loader, new Class<?>[] {shape.consumerType}, attempt);
            Object callbackProxy = callbackProxy(attempt.outcome);
            try {
                shape.setAttribute.invoke(context, AgentHooks.GOVERNED_CALL, call);
            } catch (InvocationTargetException e) {
                throw new IllegalStateException(e.getCause()); // the agent's to fall back from, not the outcome
            }
            return new Object[] {consumerProxy, callbackProxy};
        }

        @Override
        protected Future<?> execute(Object prepared) throws Exception {
            Object[] proxies = (Object[]) prepared;
            return (Future<?>) shape.execute.invoke(client, target, producer, proxies[0], pushHandlerFactory, context, proxies[1]);
        }

        @Override
        protected Future<?> executePlain(Object callbackProxy) throws Exception {
            return (Future<?>) shape.execute.invoke(client, target, producer, consumer, pushHandlerFactory, context, callbackProxy);
        }

        /** The context no longer names the call once it is over, unless another call sharing it named its own since. */
        @Override
        protected void forget() {
            try {
                if (shape.getAttribute.invoke(context, AgentHooks.GOVERNED_CALL) == call) {
                    shape.removeAttribute.invoke(context, AgentHooks.GOVERNED_CALL);
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                AgentLog.failure("clearing an Apache async context", e);
            }
        }
    }

    /**
     * One attempt's response consumer ({@link AsyncAttempt}): decides at {@code consumeResponse}; a discarded refusal's
     * body is let in without bound of capacity and dropped. The application's consumer sees nothing of it, its
     * {@code releaseResources} included.
     */
    static final class AttemptConsumer extends AsyncAttempt {
        private final GovernedExchange governed;
        private volatile Object pendingResult;
        private long bytes;

        AttemptConsumer(GovernedExchange exchange) {
            super(exchange);
            this.governed = exchange;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            if (method.getDeclaringClass() == Object.class) {
                return AsyncExchange.identity(proxy, method, args);
            }
            String name = method.getName();
            if (name.equals("consumeResponse") && args != null && args.length == 4 && refused(args[0])) {
                if (args[1] == null) {
                    completed(args[3]); // no body: the refusal is over
                } else {
                    pendingResult = args[3];
                    startDiscard();
                }
                return null;
            }
            if (!discarding()) {
                return AsyncExchange.forward(method, governed.consumer, args);
            }
            switch (name) {
                case "updateCapacity":
                    governed.shape.updateCapacity(args[0], Integer.MAX_VALUE);
                    return null;
                case "consume":
                    ByteBuffer data = (ByteBuffer) args[0];
                    bytes += data.remaining();
                    data.position(data.limit());
                    if (bytes > AsyncExchange.DISCARD_BYTES) {
                        abandonBody();
                    }
                    return null;
                case "streamEnd":
                    stopTimer();
                    completed(pendingResult);
                    return null;
                default: // failed, releaseResources, informationResponse: the refusal's, not the application's
                    return null;
            }
        }
    }
}
