package dev.retryafter.agent.instrument.apache5async;

import dev.retryafter.agent.report.Turns;
import dev.retryafter.agent.AgentLog;
import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.Delays;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.Endpoint;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
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
public final class Apache5AsyncCalls {

    /** As the other adapters' discards: long enough for a small body on a slow link, short against any wait. */
    static final long DISCARD_MILLIS = 100;
    static final long DISCARD_BYTES = 64 * 1024;

    /** Where the agent's own failures and delayed sends run: never the agent's delay thread, never the caller's. */
    private static final Executor ASYNC = ForkJoinPool.getCommonPoolParallelism() > 1 ? ForkJoinPool.commonPool() : new ThreadPerTask();

    /** A class, not a lambda: this class is loaded at start-up, where no lambda of the agent's is linked (see AgentInstaller). */
    private static final class ThreadPerTask implements Executor {
        @Override
        public void execute(Runnable task) {
            Thread thread = new Thread(task, "retry-after-agent-apache5-async");
            thread.setDaemon(true);
            thread.start();
        }
    }

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
    static final class Shape {
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
        private volatile Method getFirstHeader;
        private volatile Method headerName;
        private volatile Method headerValue;
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
                    return identity(proxy, method, args);
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
                getUri = publicMethod(head[0].getClass(), "getUri");
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

        int status(Object response) throws ReflectiveOperationException {
            if (getCode == null) {
                getCode = publicMethod(response.getClass(), "getCode");
            }
            return (Integer) getCode.invoke(response);
        }

        Object[] headers(Object response) throws ReflectiveOperationException {
            if (getHeaders == null) {
                getHeaders = publicMethod(response.getClass(), "getHeaders");
            }
            return (Object[]) getHeaders.invoke(response);
        }

        String firstHeader(Object response, String name) throws ReflectiveOperationException {
            if (getFirstHeader == null) {
                getFirstHeader = publicMethod(response.getClass(), "getFirstHeader", String.class);
            }
            Object header = getFirstHeader.invoke(response, name);
            return header == null ? null : headerValue(header);
        }

        String headerName(Object header) throws ReflectiveOperationException {
            if (headerName == null) {
                headerName = publicMethod(header.getClass(), "getName");
            }
            return (String) headerName.invoke(header);
        }

        String headerValue(Object header) throws ReflectiveOperationException {
            if (headerValue == null) {
                headerValue = publicMethod(header.getClass(), "getValue");
            }
            return (String) headerValue.invoke(header);
        }

        void updateCapacity(Object capacityChannel, int increment) throws ReflectiveOperationException {
            if (capacityUpdate == null) {
                capacityUpdate = publicMethod(capacityChannel.getClass(), "update", int.class);
            }
            capacityUpdate.invoke(capacityChannel, increment);
        }

        /** The method as a public interface or class declares it: the client's implementations need not be public. */
        private static Method publicMethod(Class<?> type, String name, Class<?>... parameters) throws NoSuchMethodException {
            for (Class<?> c = type; c != null; c = c.getSuperclass()) {
                for (Class<?> i : c.getInterfaces()) {
                    try {
                        return i.getMethod(name, parameters);
                    } catch (NoSuchMethodException next) {
                        // on to the next
                    }
                }
                if (java.lang.reflect.Modifier.isPublic(c.getModifiers())) {
                    try {
                        return c.getMethod(name, parameters);
                    } catch (NoSuchMethodException next) {
                        // on to the superclass
                    }
                }
            }
            throw new NoSuchMethodException(name + " on " + type.getName());
        }
    }

    /** The proxy's own {@code Object} methods: equal to itself alone. */
    static Object identity(Object proxy, Method method, Object[] args) {
        switch (method.getName()) {
            case "equals":
                return proxy == args[0];
            case "hashCode":
                return System.identityHashCode(proxy);
            default:
                return "retry-after-agent " + proxy.getClass().getInterfaces()[0].getSimpleName();
        }
    }

    static Object forward(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /**
     * The future the application holds: one attempt after another until an outcome is final. Cancelling it
     * abandons the call (its place in the host's queue, its wait) and cancels the attempt in flight.
     */
    static final class GovernedExchange extends CompletableFuture<Object> {
        private final Shape shape;
        private final Call call;
        private final CallDepth depth;
        private final Delays delays;
        private final Object client;
        private final Object target;
        private final Object producer;
        private final Object consumer;
        private final Object pushHandlerFactory;
        private final Object context;
        private final Object callback;
        private volatile Future<?> inFlight;
        private volatile boolean finished;

        GovernedExchange(Shape shape, Call call, CallDepth depth, Delays delays, Object client, Object target, Object producer, Object consumer,
                         Object pushHandlerFactory, Object context, Object callback) {
            this.shape = shape;
            this.call = call;
            this.depth = depth;
            this.delays = delays;
            this.client = client;
            this.target = target;
            this.producer = producer;
            this.consumer = consumer;
            this.pushHandlerFactory = pushHandlerFactory;
            this.context = context;
            this.callback = callback;
        }

        /**
         * The first attempt, on the application's thread: false when the client's own {@code execute} threw there
         * at once (nothing was sent), and the original method is to run and throw it as it always did.
         */
        boolean first() {
            CompletableFuture<Void> turn;
            try {
                turn = Turns.start(call);
            } catch (RuntimeException e) {
                AgentLog.failure("taking an Apache async turn", e);
                call.endAttempt();
                return false;
            }
            if (turn.isDone() && !turn.isCompletedExceptionally()) {
                if (!send(true)) {
                    call.endAttempt();
                    return false;
                }
                return true;
            }
            afterTurn(turn);
            return true;
        }

        /** Any later attempt, after a refusal: its turn is a scheduled continuation, never a blocked thread. */
        void attempt() {
            CompletableFuture<Void> turn;
            try {
                turn = Turns.start(call);
            } catch (RuntimeException e) {
                fallBack(e);
                return;
            }
            afterTurn(turn);
        }

        private void afterTurn(CompletableFuture<Void> turn) {
            inFlight = turn;
            turn.whenCompleteAsync((granted, failure) -> {
                if (failure == null) {
                    if (isDone()) {
                        call.endAttempt(); // cancelled by the application while the turn came
                    } else {
                        send(false);
                    }
                    return;
                }
                Throwable cause = unwrap(failure);
                if (cause instanceof HostHeldException) {
                    fail((HostHeldException) cause);
                } else if (!(cause instanceof CancellationException)) {
                    fallBack(cause);
                }
            }, ASYNC);
        }

        /**
         * One attempt through the client's own {@code execute}, inside this call so its advice lets it run. False
         * only when {@code atOnce} and the client threw before sending anything.
         */
        private boolean send(boolean atOnce) {
            AttemptConsumer attempt = new AttemptConsumer(this);
            Object consumerProxy;
            Object callbackProxy;
            try {
                consumerProxy = Proxy.newProxyInstance(shape.loader, new Class<?>[] {shape.consumerType}, attempt);
                callbackProxy = Proxy.newProxyInstance(shape.loader, new Class<?>[] {shape.callbackType}, attempt.outcome);
                shape.setAttribute.invoke(context, AgentHooks.GOVERNED_CALL, call);
            } catch (Throwable t) {
                if (atOnce) {
                    AgentLog.failure("governing an Apache async call", t);
                    return false;
                }
                fallBack(t);
                return true;
            }
            Call previous = depth.enter(call);
            try {
                Future<?> sent = (Future<?>) shape.execute.invoke(client, target, producer, consumerProxy, pushHandlerFactory, context,
                        callbackProxy);
                attempt.sent(sent);
                inFlight = sent;
                if (isDone()) {
                    sent.cancel(true); // cancelled by the application while this was being sent
                }
                return true;
            } catch (InvocationTargetException e) {
                if (atOnce) {
                    forget();
                    return false;
                }
                call.endAttempt();
                fail(e.getCause() instanceof Exception ? (Exception) e.getCause() : new IllegalStateException(e.getCause()));
                return true;
            } catch (Throwable t) {
                if (atOnce) {
                    AgentLog.failure("governing an Apache async call", t);
                    forget();
                    return false;
                }
                fallBack(t);
                return true;
            } finally {
                depth.restore(previous);
            }
        }

        /** Something inside the agent failed: the request goes out once more, as the client alone would send it. */
        private void fallBack(Throwable agentFailure) {
            AgentLog.failure("governing an Apache async call", agentFailure);
            call.endAttempt();
            forget();
            Call previous = depth.enter(call); // so the advice lets the plain call run
            try {
                inFlight = (Future<?>) shape.execute.invoke(client, target, producer, consumer, pushHandlerFactory, context,
                        Proxy.newProxyInstance(shape.loader, new Class<?>[] {shape.callbackType}, new PlainOutcome(this)));
            } catch (InvocationTargetException e) {
                fail(e.getCause() instanceof Exception ? (Exception) e.getCause() : new IllegalStateException(e.getCause()));
            } catch (Throwable t) {
                fail(t instanceof Exception ? (Exception) t : new IllegalStateException(t));
            } finally {
                depth.restore(previous);
            }
        }

        /** An attempt is over: on to the next, or the outcome is final. Runs on the client's I/O thread. */
        void attemptEnded(AttemptConsumer attempt, Object result, Exception failure, boolean cancelled) {
            call.endAttempt();
            if (attempt.discarding()) {
                if (isDone()) {
                    return;
                }
                attempt(); // a refusal retried: its body's end, a failure reading it, or its exchange given up on alike
                return;
            }
            if (cancelled) {
                cancelledByClient();
            } else if (failure != null) {
                failHere(failure);
            } else {
                succeed(result);
            }
        }

        void succeed(Object result) {
            finished = true;
            forget();
            complete(result);
            tell(shape.completed, result);
        }

        /** A failure of the agent's (a held host) or from a thread of the agent's: told on another thread. */
        void fail(Exception failure) {
            ASYNC.execute(() -> failHere(failure));
        }

        void failHere(Exception failure) {
            finished = true;
            forget();
            completeExceptionally(failure);
            tell(shape.failed, failure);
        }

        void cancelledByClient() {
            finished = true;
            forget();
            super.cancel(false);
            tell(shape.cancelled);
        }

        private void tell(Method method, Object... args) {
            if (callback == null) {
                return;
            }
            try {
                method.invoke(callback, args);
            } catch (InvocationTargetException e) {
                AgentLog.logger().debug("the application's callback threw", e.getCause()); // as the client's own future logs nothing
            } catch (ReflectiveOperationException | RuntimeException e) {
                AgentLog.failure("calling an Apache async callback", e);
            }
        }

        /** The context no longer names the call once it is over, unless another call sharing it named its own since. */
        private void forget() {
            try {
                if (shape.getAttribute.invoke(context, AgentHooks.GOVERNED_CALL) == call) {
                    shape.removeAttribute.invoke(context, AgentHooks.GOVERNED_CALL);
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                AgentLog.failure("clearing an Apache async context", e);
            }
        }

        /** The application cancels: the call is abandoned, the attempt in flight cancelled, its callback told. */
        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            if (finished || !super.cancel(mayInterruptIfRunning)) {
                return false;
            }
            finished = true;
            call.abandon();
            Future<?> current = inFlight;
            if (current != null) {
                current.cancel(true);
            }
            forget();
            tell(shape.cancelled);
            return true;
        }

        Shape shape() {
            return shape;
        }

        Call call() {
            return call;
        }

        Object consumer() {
            return consumer;
        }

        Delays delays() {
            return delays;
        }
    }

    /** The outcome of a plain attempt (the agent's fallback), handed through as it comes. */
    private static final class PlainOutcome implements InvocationHandler {
        private final GovernedExchange exchange;

        PlainOutcome(GovernedExchange exchange) {
            this.exchange = exchange;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) {
            if (method.getDeclaringClass() == Object.class) {
                return identity(proxy, method, args);
            }
            switch (method.getName()) {
                case "completed":
                    exchange.succeed(args[0]);
                    break;
                case "failed":
                    exchange.failHere((Exception) args[0]);
                    break;
                default:
                    exchange.cancelledByClient();
            }
            return null;
        }
    }

    /**
     * One attempt's response consumer, standing in front of the application's: decides on the response head
     * ({@code consumeResponse}) and then either hands everything through, or discards the refusal: its body read
     * and dropped within {@link #DISCARD_MILLIS} and {@link #DISCARD_BYTES}, else the exchange cancelled, which closes
     * its connection. The application's consumer sees nothing of a discarded refusal, its {@code releaseResources}
     * included.
     */
    static final class AttemptConsumer implements InvocationHandler {
        private final GovernedExchange exchange;
        final Outcome outcome = new Outcome();
        private volatile boolean discarding;
        private volatile Future<?> sent;
        private volatile CompletableFuture<Void> giveUp;
        private long bytes;

        AttemptConsumer(GovernedExchange exchange) {
            this.exchange = exchange;
        }

        boolean discarding() {
            return discarding;
        }

        void sent(Future<?> future) {
            sent = future;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            if (method.getDeclaringClass() == Object.class) {
                return identity(proxy, method, args);
            }
            String name = method.getName();
            if (name.equals("consumeResponse") && args != null && args.length == 4) {
                if (decideRetry(args[0])) {
                    discarding = true;
                    Object resultCallback = args[3];
                    if (args[1] == null) {
                        exchange.shape().completed.invoke(resultCallback, (Object) null); // no body: the refusal is over
                    } else {
                        startDiscard(resultCallback);
                    }
                    return null;
                }
                return forward(method, exchange.consumer(), args);
            }
            if (!discarding) {
                return forward(method, exchange.consumer(), args);
            }
            switch (name) {
                case "updateCapacity":
                    exchange.shape().updateCapacity(args[0], Integer.MAX_VALUE);
                    return null;
                case "consume":
                    ByteBuffer data = (ByteBuffer) args[0];
                    bytes += data.remaining();
                    data.position(data.limit());
                    if (bytes > DISCARD_BYTES) {
                        abandonBody();
                    }
                    return null;
                case "streamEnd":
                    CompletableFuture<Void> timer = giveUp;
                    if (timer != null) {
                        timer.cancel(false);
                    }
                    exchange.shape().completed.invoke(pendingResult, (Object) null);
                    return null;
                default: // failed, releaseResources, informationResponse: the refusal's, not the application's
                    return null;
            }
        }

        private volatile Object pendingResult;

        private void startDiscard(Object resultCallback) {
            pendingResult = resultCallback;
            CompletableFuture<Void> timer = exchange.delays().after(DISCARD_MILLIS);
            giveUp = timer;
            timer.thenRunAsync(this::abandonBody, ASYNC);
        }

        /** A refusal's body that stalls or runs on: its exchange is cancelled, its connection closed, and the retry goes ahead. */
        private void abandonBody() {
            Future<?> future = sent;
            if (future != null) {
                future.cancel(true);
            }
        }

        /** The agent's decision on the response head: true to discard it and send again. */
        private boolean decideRetry(Object response) {
            try {
                Shape shape = exchange.shape();
                Call call = exchange.call();
                int status = shape.status(response);
                if (call.wantsHeaders(status)) {
                    for (Object header : shape.headers(response)) {
                        call.offerHeader(shape.headerName(header), shape.headerValue(header));
                    }
                }
                return call.onResponse(status, status >= AgentHooks.LOWEST_REFUSAL ? shape.firstHeader(response, "Retry-After") : null);
            } catch (Throwable t) {
                AgentLog.failure("deciding on an Apache async response", t);
                return false;
            }
        }

        /** The attempt's own callback, given to the client's {@code execute}. */
        final class Outcome implements InvocationHandler {
            @Override
            public Object invoke(Object proxy, Method method, Object[] args) {
                if (method.getDeclaringClass() == Object.class) {
                    return identity(proxy, method, args);
                }
                CompletableFuture<Void> timer = giveUp;
                if (timer != null) {
                    timer.cancel(false);
                }
                switch (method.getName()) {
                    case "completed":
                        exchange.attemptEnded(AttemptConsumer.this, args[0], null, false);
                        break;
                    case "failed":
                        exchange.attemptEnded(AttemptConsumer.this, null, (Exception) args[0], false);
                        break;
                    default:
                        exchange.attemptEnded(AttemptConsumer.this, null, null, true);
                }
                return null;
            }
        }
    }
}
