package dev.retryafter.agent.instrument;

import dev.retryafter.agent.AgentLog;
import dev.retryafter.agent.engine.Call;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * Stands in front of an Apache retry strategy (HttpClient 5's {@code HttpRequestRetryStrategy},
 * 4's {@code ServiceUnavailableRetryStrategy}, the default ones and an application's own) and,
 * while the agent governs the call, answers "no" when asked to retry a response whose status the
 * agent governs. Those retries are the agent's: left to the strategy they run beneath the agent's
 * loop, honour {@code Retry-After} with no ceiling (an hour, for one {@code 3600}), and multiply
 * attempts. Outside a governed call (a request the agent could not take on), retries after I/O
 * errors, and statuses the agent does not govern, everything stays the strategy's.
 */
public final class RetryStrategyGuard implements InvocationHandler {

    private final Object strategy;
    private final CallDepth depth;

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

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        Call call = depth.current();
        if (call != null && isRetryOnResponse(method, args)) {
            try {
                if (call.host().policy().isRefusal(status(args[0]))) {
                    return Boolean.FALSE;
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                AgentLog.failure("reading a status for a retry strategy", e);
            }
        }
        try {
            return method.invoke(strategy, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** {@code retryRequest(HttpResponse, int, HttpContext)} in both versions. */
    private static boolean isRetryOnResponse(Method method, Object[] args) {
        return args != null && args.length == 3 && method.getName().equals("retryRequest")
                && method.getParameterTypes()[0].getSimpleName().equals("HttpResponse");
    }

    /**
     * How to read the status of a response class, found once per class: strategies are asked about
     * every response, successes included, so this sits on the happy path.
     */
    private static final ClassValue<Method[]> STATUS_READERS = new ClassValue<Method[]>() {
        @Override
        protected Method[] computeValue(Class<?> type) {
            Method code = publicMethod(type, "getCode");                          // HttpClient 5
            if (code != null) {
                return new Method[] {code};
            }
            Method statusLine = publicMethod(type, "getStatusLine");              // HttpClient 4
            Method statusCode = statusLine == null ? null : publicMethod(statusLine.getReturnType(), "getStatusCode");
            return statusCode == null ? new Method[0] : new Method[] {statusLine, statusCode};
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

    /** The method as a public interface declares it: response classes themselves need not be public. */
    private static Method publicMethod(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.isInterface()) {
                Method m = method(c, name);
                if (m != null) {
                    return m;
                }
            }
            for (Class<?> i : c.getInterfaces()) {
                Method m = method(i, name);
                if (m != null) {
                    return m;
                }
            }
        }
        return null;
    }

    private static Method method(Class<?> type, String name) {
        try {
            return type.getMethod(name);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return "RetryStrategyGuard[" + strategy + "]";
    }
}
