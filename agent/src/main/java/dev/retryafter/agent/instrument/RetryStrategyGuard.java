package dev.retryafter.agent.instrument;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.engine.Call;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;

/**
 * Stands in front of an Apache retry strategy (HttpClient 5's {@code HttpRequestRetryStrategy},
 * 4's {@code ServiceUnavailableRetryStrategy}, the default ones and an application's own) and,
 * while the agent governs the call, answers "no" when asked to retry a response whose status the
 * agent governs. Those retries are the agent's: left to the strategy they run beneath the agent's
 * loop, honour {@code Retry-After} with no ceiling (an hour, for one {@code 3600}), and multiply
 * attempts. Outside a governed call (a request the agent could not take on), retries after I/O
 * errors, statuses the agent does not govern, and every call in observe mode, everything stays
 * the strategy's. It asks at each response, not when the client is built, so a client built in
 * observe mode has its refusals answered by the agent once the mode switches to enforce.
 */
public final class RetryStrategyGuard implements InvocationHandler {

    private final Object strategy;
    private final CallDepth depth;
    /** The route last taken, and the method it was asked for: a proxy passes the same {@link Method} object each time. */
    private volatile Taken lastTaken;

    private RetryStrategyGuard(Object strategy, CallDepth depth) {
        this.strategy = strategy;
        this.depth = depth;
    }

    /** A proxy implementing {@code type}, defined in the strategy's own class loader. */
    public static Object guard(Object strategy, Class<?> type, CallDepth depth) {
        if (Proxy.isProxyClass(strategy.getClass()) && Proxy.getInvocationHandler(strategy) instanceof RetryStrategyGuard) {
            return strategy;
        }
        return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, new RetryStrategyGuard(strategy, depth));
    }

    /** As {@link #guard(Object, Class, CallDepth)}, unless the strategy's class answers for itself; null when null. */
    public static Object guard(Object strategy, Class<?> type, CallDepth depth, SelfGuardedStrategies selfGuarded) {
        return strategy == null || selfGuarded.covers(strategy.getClass()) ? strategy : guard(strategy, type, depth);
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getDeclaringClass() == Object.class) {
            return Proxies.identity(proxy, method, args, this); // an object of its own, as the strategy it stands for is
        }
        Taken taken = lastTaken;
        if (taken == null || taken.asked != method) {
            taken = new Taken(method, Route.of(method));
            lastTaken = taken;
        }
        Route route = taken.route;
        Call call = depth.current();
        if (route.asksAboutAResponse) {
            try {
                if (call == null) {
                    call = asyncCall(args[2]); // the async client asks on an I/O thread: its exchange's context holds the call
                }
                if (call != null && call.answersRefusal(status(args[0]))) {
                    return Boolean.FALSE;
                }
            } catch (Throwable t) { // the agent's own: the application's strategy is called below, outside this
                AgentLog.failure("reading a status for a retry strategy", t);
            }
        }
        try {
            return route.target.invoke(strategy, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** A route and the very method object it was looked up for: compared by identity, where the map's lookup hashes and compares. */
    private static final class Taken {
        final Method asked;
        final Route route;

        Taken(Method asked, Route route) {
            this.asked = asked;
            this.route = route;
        }
    }

    /**
     * How a call on the interface reaches the strategy, worked out once per method: strategies are
     * asked about every response, successes included, so this sits on the happy path.
     */
    private static final class Route {
        private static final ClassValue<Map<Method, Route>> BY_INTERFACE = new ClassValue<Map<Method, Route>>() {
            @Override
            protected Map<Method, Route> computeValue(Class<?> type) {
                Map<Method, Route> routes = new HashMap<>();
                for (Method method : type.getMethods()) {
                    routes.put(method, new Route(method));
                }
                return routes;
            }
        };

        /** The method with its access checks off, or the method itself where the JVM refuses. */
        final Method target;
        /** {@code retryRequest(HttpResponse, int, HttpContext)} in both versions. */
        final boolean asksAboutAResponse;

        private Route(Method method) {
            target = ClientMethod.accessibleCopy(method);
            asksAboutAResponse = method.getName().equals("retryRequest") && method.getParameterCount() == 3
                    && method.getParameterTypes()[0].getSimpleName().equals("HttpResponse");
        }

        static Route of(Method method) {
            Route route = BY_INTERFACE.get(method.getDeclaringClass()).get(method);
            return route != null ? route : new Route(method);
        }
    }

    /** How to read the status of a response class, found once per class, for the same reason. */
    private static final ClassValue<Method[]> STATUS_READERS = new ClassValue<Method[]>() {
        @Override
        protected Method[] computeValue(Class<?> type) {
            Method code = ClientMethod.find(type, "getCode");                          // HttpClient 5
            if (code != null) {
                return new Method[] {ClientMethod.accessibleCopy(code)};
            }
            Method statusLine = ClientMethod.find(type, "getStatusLine");              // HttpClient 4
            Method statusCode = statusLine == null ? null : ClientMethod.find(statusLine.getReturnType(), "getStatusCode");
            return statusCode == null ? new Method[0]
                    : new Method[] {ClientMethod.accessibleCopy(statusLine), ClientMethod.accessibleCopy(statusCode)};
        }
    };

    private static int status(Object response) throws ReflectiveOperationException {
        Object value = response;
        Method[] readers = STATUS_READERS.get(response.getClass());
        if (readers.length == 0) {
            throw new NoSuchMethodException("no status on " + response.getClass().getName());
        }
        for (Method reader : readers) {
            value = reader.invoke(value);
        }
        return (Integer) value;
    }

    /** {@code getAttribute(String)} of a context class, found once per class. */
    private static final ClientMethod ATTRIBUTE = new ClientMethod("getAttribute", "String");

    /** The governed call an asynchronous exchange's context holds ({@link AgentHooks#GOVERNED_CALL}), or null. */
    private static Call asyncCall(Object context) throws ReflectiveOperationException {
        Object call = context == null ? null : ATTRIBUTE.call(context, AgentHooks.GOVERNED_CALL);
        return call instanceof Call ? (Call) call : null;
    }

    /**
     * Whether a client's own retry of {@code status} must stand aside: this thread's governed call, or, off the thread of
     * any, {@code asyncCall} (an asynchronous exchange's {@link AgentHooks#GOVERNED_CALL}, null for none) retries it itself.
     */
    public static boolean isGovernedRefusal(CallDepth depth, int status, Object asyncCall) {
        Call call = depth.current();
        if (call == null && asyncCall instanceof Call) {
            call = (Call) asyncCall;
        }
        return call != null && call.answersRefusal(status);
    }

    @Override
    public String toString() {
        return "RetryStrategyGuard[" + strategy + "]";
    }
}
