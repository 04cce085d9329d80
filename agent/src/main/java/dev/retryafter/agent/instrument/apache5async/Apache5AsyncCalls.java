package dev.retryafter.agent.instrument.apache5async;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.Delays;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.AsyncAttempt;
import dev.retryafter.agent.instrument.AsyncExchange;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.AsyncCall;
import dev.retryafter.agent.instrument.AsyncCallHook;
import dev.retryafter.agent.instrument.Proxies;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.nio.ByteBuffer;

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
public final class Apache5AsyncCalls extends AsyncCallHook<Apache5AsyncCalls.Shape> {

    /** {@code doExecute}'s hook: its arguments, the client, then the target, producer, consumer, pushHandlerFactory, context and callback. */
    public Apache5AsyncCalls(RetryEngine engine, CallDepth depth) {
        super("apache5async.execute", "an HttpAsyncClient 5", engine, depth);
    }

    @Override
    protected Shape shapeOf(Class<?> clientType) throws ReflectiveOperationException {
        return new Shape(Proxies.declared(clientType, "execute", ".HttpHost", null, null, null, null, null));
    }

    /** The call to the request's host, where the agent can tell it before the request is sent ({@link Shape#endpoint}). */
    @Override
    protected Call callFor(Shape shape, Object[] a) throws ReflectiveOperationException {
        if (a[2] == null || a[3] == null) {
            return null; // no producer or consumer: the client's to refuse
        }
        if (a[5] == null) { // the client's to replace with a new one: the agent does, so its retry strategy finds the call in it
            a[5] = shape.newContext();
        }
        Object target = a[1], producer = a[2], context = a[5];
        boolean repeatable = (Boolean) shape.isRepeatable.invoke(producer);
        Object[] endpoint = shape.endpoint(target, producer, context, repeatable);
        return endpoint == null ? null : open((String) endpoint[0], (String) endpoint[1], (Integer) endpoint[2], repeatable);
    }

    @Override
    protected AsyncCall<?> governed(Shape shape, Call call, Object client, Object[] arguments) {
        return new GovernedExchange(shape, call, depth, engine.delays(), client, arguments);
    }

    /** The client's types and methods, as its own {@code execute} names them; found once per client class. */
    static final class Shape extends AsyncExchange.ClientShape {
        final Method isRepeatable;
        final Method sendRequest;
        final Class<?> channelType;
        final Method setAttribute;
        final Method getAttribute;
        final Method removeAttribute;
        /** {@code HttpClientContext.create()}, next to the client's {@code HttpContext}: null where it is not. */
        private final Method createContext;
        private final Proxies.FoundAtFirstUse getUri = new Proxies.FoundAtFirstUse("getUri");
        private final Proxies.FoundAtFirstUse capacityUpdate = new Proxies.FoundAtFirstUse("update", int.class);

        /** {@code execute(target, producer, consumer, pushHandlerFactory, context, callback)}. */
        Shape(Method execute) throws ReflectiveOperationException {
            super(execute, 2, 5, "getHeaders", "getCode");
            Class<?> producerType = execute.getParameterTypes()[1];
            Class<?> contextType = execute.getParameterTypes()[4];
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
            createContext = clientContextCreate(contextType, execute.getDeclaringClass().getClassLoader());
        }

        /** A new context for a call the application gave none, as the client would make it; null when none can be made. */
        Object newContext() throws ReflectiveOperationException {
            return createContext == null ? null : createContext.invoke(null);
        }

        /** {@code <root>client5.http.protocol.HttpClientContext.create()}, for {@code <root>core5.http.protocol.HttpContext}. */
        private static Method clientContextCreate(Class<?> contextType, ClassLoader client) {
            String name = contextType.getName();
            String core = "core5.http.protocol.HttpContext";
            if (!name.endsWith(core)) {
                return null;
            }
            String clientContext = name.substring(0, name.length() - core.length()) + "client5.http.protocol.HttpClientContext";
            try {
                return Class.forName(clientContext, false, client).getMethod("create");
            } catch (ReflectiveOperationException | LinkageError notThere) {
                return null;
            }
        }

        /**
         * {@code {scheme, host, port}} of the request, or null when the agent cannot tell before it is sent: from the
         * target when the application named one, else from the request head the producer hands to a channel of the
         * agent's. A producer is asked for it only when it will be asked again (repeatable), or is the client's own
         * {@code BasicRequestProducer}, which only hands over what it holds.
         */
        Object[] endpoint(Object target, Object producer, Object context, boolean repeatable) throws ReflectiveOperationException {
            if (target != null) {
                return endpoint(target);
            }
            if (!repeatable && !isBasicProducer(producer.getClass())) {
                return null;
            }
            Object[] head = new Object[1];
            Object channel = Proxy.newProxyInstance(loader, new Class<?>[] {channelType}, (proxy, method, args) -> {
                if (method.getDeclaringClass() == Object.class) {
                    return Proxies.identity(proxy, method, args);
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

        void updateCapacity(Object capacityChannel, int increment) throws ReflectiveOperationException {
            capacityUpdate.invoke(capacityChannel, increment);
        }
    }

    /** The future the application holds ({@link AsyncExchange}), the context naming its call while it runs. */
    static final class GovernedExchange extends AsyncExchange {
        private final Shape shape;

        /** {@code arguments}: {@code doExecute}'s, target, producer, consumer, pushHandlerFactory, context, callback. */
        GovernedExchange(Shape shape, Call call, CallDepth depth, Delays delays, Object client, Object[] arguments) {
            super("Apache async", call, depth, delays, shape, client, arguments);
            this.shape = shape;
        }

        @Override
        protected AsyncAttempt<?> newAttempt() {
            return new AttemptConsumer(this);
        }

        @Override
        protected Object[] prepare(AsyncAttempt<?> attempt) throws Exception {
            Object[] attemptArguments = super.prepare(attempt);
            try {
                shape.setAttribute.invoke(attemptArguments[4], AgentHooks.GOVERNED_CALL, call); // its context
            } catch (InvocationTargetException e) {
                throw new IllegalStateException(e.getCause()); // the agent's to fall back from, not the outcome
            }
            return attemptArguments;
        }

        /** The context no longer names the call once it is over, unless another call sharing it named its own since. */
        @Override
        protected void forget() {
            Object context = arguments[4];
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
    static final class AttemptConsumer extends AsyncAttempt<GovernedExchange> {
        private volatile Object pendingResult;
        private long bytes;

        AttemptConsumer(GovernedExchange exchange) {
            super(exchange, "consumeResponse", 4);
        }

        /** {@code consumeResponse(response, entityDetails, context, resultCallback)}. */
        @Override
        protected void discardFrom(Object[] args) throws ReflectiveOperationException {
            if (args[1] == null) {
                completed(args[3]); // no body: the refusal is over
            } else {
                pendingResult = args[3];
                startDiscard();
            }
        }

        @Override
        protected Object discarded(String name, Object[] args) throws ReflectiveOperationException {
            switch (name) {
                case "updateCapacity":
                    exchange.shape.updateCapacity(args[0], Integer.MAX_VALUE);
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
