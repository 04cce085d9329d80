package dev.retryafter.agent.instrument.apache4async;

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
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
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
public final class Apache4AsyncCalls {

    /** As the other adapters' discards: long enough for a small body on a slow link, short against any wait. */
    static final long DISCARD_MILLIS = 100;
    static final long DISCARD_BYTES = 64 * 1024;

    /** Where the agent's own failures and delayed sends run: never the agent's delay thread, never an I/O dispatcher. */
    private static final Executor ASYNC = ForkJoinPool.getCommonPoolParallelism() > 1 ? ForkJoinPool.commonPool() : new ThreadPerTask();

    /** A class, not a lambda: this class is loaded at start-up, where no lambda of the agent's is linked (see AgentInstaller). */
    private static final class ThreadPerTask implements Executor {
        @Override
        public void execute(Runnable task) {
            Thread thread = new Thread(task, "retry-after-agent-apache4-async");
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
    static final class Shape {
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
        private volatile Method getFirstHeader;
        private volatile Method headerName;
        private volatile Method headerValue;
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
                getPort = publicMethod(target.getClass(), "getPort");
                getHostName = publicMethod(target.getClass(), "getHostName");
                getSchemeName = publicMethod(target.getClass(), "getSchemeName");
            }
            return (String) getSchemeName.invoke(target);
        }

        String hostName(Object target) throws ReflectiveOperationException {
            return (String) getHostName.invoke(target);
        }

        int port(Object target) throws ReflectiveOperationException {
            return (Integer) getPort.invoke(target);
        }

        int status(Object response) throws ReflectiveOperationException {
            if (getStatusCode == null) {
                getStatusLine = publicMethod(response.getClass(), "getStatusLine");
                getStatusCode = publicMethod(getStatusLine.getReturnType(), "getStatusCode");
            }
            return (Integer) getStatusCode.invoke(getStatusLine.invoke(response));
        }

        Object[] headers(Object response) throws ReflectiveOperationException {
            if (getAllHeaders == null) {
                getAllHeaders = publicMethod(response.getClass(), "getAllHeaders");
            }
            return (Object[]) getAllHeaders.invoke(response);
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

        /** {@code ContentDecoder.read(ByteBuffer)}: the bytes read, -1 at the body's end. */
        int read(Object decoder, ByteBuffer into) throws ReflectiveOperationException {
            if (decoderRead == null) {
                decoderRead = publicMethod(decoder.getClass(), "read", ByteBuffer.class);
            }
            return (Integer) decoderRead.invoke(decoder, into);
        }

        /** The method as a public interface or class declares it: the client's implementations need not be public. */
        private static Method publicMethod(Class<?> type, String name, Class<?>... parameters) throws NoSuchMethodException {
            for (Class<?> c = type; c != null; c = c.getSuperclass()) {
                if (c.isInterface() || Modifier.isPublic(c.getModifiers())) {
                    try {
                        return c.getMethod(name, parameters);
                    } catch (NoSuchMethodException next) {
                        // on to its interfaces
                    }
                }
                for (Class<?> i : c.getInterfaces()) {
                    try {
                        return i.getMethod(name, parameters);
                    } catch (NoSuchMethodException next) {
                        // on to the next
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

    private static Exception asException(Throwable failure) {
        return failure instanceof Exception ? (Exception) failure : new IllegalStateException(failure);
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
        private final Object producer;
        private final Object consumer;
        private final Object context;
        private final Object callback;
        private volatile Future<?> inFlight;
        private volatile boolean finished;
        /** Whether an attempt went out with the application's producer and consumer: a later one resets the producer first. */
        private volatile boolean sentOnce;

        GovernedExchange(Shape shape, Call call, CallDepth depth, Delays delays, Object client, Object producer, Object consumer,
                         Object context, Object callback) {
            this.shape = shape;
            this.call = call;
            this.depth = depth;
            this.delays = delays;
            this.client = client;
            this.producer = producer;
            this.consumer = consumer;
            this.context = context;
            this.callback = callback;
        }

        /**
         * The first attempt, on the application's thread: false when the client's own {@code execute} threw there
         * at once (a client not started: nothing was sent), and the original method is to run and throw it as it always did.
         */
        boolean first() {
            CompletableFuture<Void> turn;
            try {
                turn = Turns.start(call);
            } catch (RuntimeException e) {
                AgentLog.failure("taking an Apache async 4 turn", e);
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
                    failUnsent((HostHeldException) cause);
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
            Attempt attempt = new Attempt(this);
            Object producerProxy;
            Object consumerProxy;
            Object callbackProxy;
            try {
                if (sentOnce) {
                    shape.resetRequest.invoke(producer); // a repeatable producer, back at its start
                }
                producerProxy = Proxy.newProxyInstance(shape.loader, new Class<?>[] {shape.producerType}, attempt.producer);
                consumerProxy = Proxy.newProxyInstance(shape.loader, new Class<?>[] {shape.consumerType}, attempt);
                callbackProxy = Proxy.newProxyInstance(shape.loader, new Class<?>[] {shape.callbackType}, attempt.outcome);
            } catch (InvocationTargetException e) {
                call.endAttempt(); // the application's producer could not start again: its failure is the outcome
                failUnsent(asException(e.getCause()));
                return true;
            } catch (Throwable t) {
                if (atOnce) {
                    AgentLog.failure("governing an Apache async 4 call", t);
                    return false;
                }
                fallBack(t);
                return true;
            }
            Call previous = depth.enter(call);
            try {
                Future<?> sent = (Future<?>) shape.execute.invoke(client, producerProxy, consumerProxy, context, callbackProxy);
                sentOnce = true;
                attempt.sent(sent);
                inFlight = sent;
                if (isDone()) {
                    sent.cancel(true); // cancelled by the application while this was being sent
                }
                return true;
            } catch (InvocationTargetException e) {
                if (atOnce) {
                    return false;
                }
                call.endAttempt();
                failUnsent(asException(e.getCause()));
                return true;
            } catch (Throwable t) {
                if (atOnce) {
                    AgentLog.failure("governing an Apache async 4 call", t);
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
            AgentLog.failure("governing an Apache async 4 call", agentFailure);
            call.endAttempt();
            Call previous = depth.enter(call); // so the advice lets the plain call run
            try {
                if (sentOnce) {
                    shape.resetRequest.invoke(producer);
                }
                inFlight = (Future<?>) shape.execute.invoke(client, producer, consumer, context,
                        Proxy.newProxyInstance(shape.loader, new Class<?>[] {shape.callbackType}, new PlainOutcome(this)));
            } catch (InvocationTargetException e) {
                failUnsent(asException(e.getCause()));
            } catch (Throwable t) {
                failUnsent(asException(t));
            } finally {
                depth.restore(previous);
            }
        }

        /** An attempt is over: on to the next, or the outcome is final. Runs on the client's I/O thread. */
        void attemptEnded(Attempt attempt, Object result, Exception failure, boolean cancelled) {
            call.endAttempt();
            if (finished) {
                return; // cancelled by the application: it has been told
            }
            if (attempt.discarding()) {
                if (!isDone()) {
                    attempt(); // a refusal retried: its body's end, a failure reading it, or its exchange given up on alike
                }
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
            complete(result);
            tell(shape.completed, result);
        }

        /**
         * A failure no attempt in flight has told the application's consumer and producer of (a held host, the
         * producer that could not start again): they hear it and are closed, as the client does with a failed exchange;
         * the future and callback are told on another thread.
         */
        void failUnsent(Exception failure) {
            ASYNC.execute(() -> {
                quietly(shape.consumerFailed, consumer, failure);
                quietly(shape.consumerClose, consumer);
                quietly(shape.producerClose, producer);
                failHere(failure);
            });
        }

        void failHere(Exception failure) {
            finished = true;
            completeExceptionally(failure);
            tell(shape.failed, failure);
        }

        void cancelledByClient() {
            finished = true;
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
                AgentLog.logger().debug("the application's callback threw", e.getCause()); // as the client's own BasicFuture lets it go
            } catch (ReflectiveOperationException | RuntimeException e) {
                AgentLog.failure("calling an Apache async 4 callback", e);
            }
        }

        private static void quietly(Method method, Object target, Object... args) {
            try {
                method.invoke(target, args);
            } catch (ReflectiveOperationException | RuntimeException e) {
                AgentLog.logger().debug("the application's consumer or producer threw", e);
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

        Object producer() {
            return producer;
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
            if (exchange.finished) {
                return null;
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
     * One attempt's response consumer, standing in front of the application's: decides on the final response's head
     * ({@code responseReceived}) and then either hands everything through, or discards the refusal: its body read and
     * dropped within {@link #DISCARD_MILLIS} and {@link #DISCARD_BYTES}, else the exchange cancelled, which closes its
     * connection. The application's consumer and producer hear nothing of a discarded refusal: not its {@code failed},
     * not its {@code close}.
     */
    static final class Attempt implements InvocationHandler {
        private final GovernedExchange exchange;
        final Outcome outcome = new Outcome();
        final Producer producer = new Producer();
        private volatile boolean discarding;
        /** The discarded body ran past its bound: the consumer says it is done, and the client drops the connection. */
        private volatile boolean overBound;
        private volatile Future<?> sent;
        private volatile CompletableFuture<Void> giveUp;
        private long bytes;
        private ByteBuffer scratch;

        Attempt(GovernedExchange exchange) {
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
            if (name.equals("responseReceived") && args != null && args.length == 1 && decideRetry(args[0])) {
                discarding = true;
                startDiscard();
                return null;
            }
            if (!discarding) {
                return forward(method, exchange.consumer(), args);
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
                int read = exchange.shape().read(decoder, scratch);
                if (read <= 0) {
                    return;
                }
                bytes += read;
                if (bytes > DISCARD_BYTES) {
                    overBound = true; // the client cancels the exchange and closes its connection
                    return;
                }
            }
        }

        private void startDiscard() {
            CompletableFuture<Void> timer = exchange.delays().after(DISCARD_MILLIS);
            giveUp = timer;
            timer.thenRunAsync(this::abandonBody, ASYNC);
        }

        private void stopTimer() {
            CompletableFuture<Void> timer = giveUp;
            if (timer != null) {
                timer.cancel(false);
            }
        }

        /** A refusal's body that stalls: its exchange is cancelled, its connection closed, and the retry goes ahead. */
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
                AgentLog.failure("deciding on an Apache async 4 response", t);
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
                stopTimer();
                switch (method.getName()) {
                    case "completed":
                        exchange.attemptEnded(Attempt.this, args[0], null, false);
                        break;
                    case "failed":
                        exchange.attemptEnded(Attempt.this, null, (Exception) args[0], false);
                        break;
                    default:
                        exchange.attemptEnded(Attempt.this, null, null, true);
                }
                return null;
            }
        }

        /** The application's producer for this attempt: all of it, but the close and failure of a discarded attempt. */
        final class Producer implements InvocationHandler {
            @Override
            public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
                if (method.getDeclaringClass() == Object.class) {
                    return identity(proxy, method, args);
                }
                if (discarding && (method.getName().equals("close") || method.getName().equals("failed"))) {
                    return null;
                }
                return forward(method, exchange.producer(), args);
            }
        }
    }
}
