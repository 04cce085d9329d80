package dev.retryafter.agent.instrument.asynchttpclient;

import dev.retryafter.agent.instrument.Proxies;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;

/**
 * AsyncHttpClient's types, as the agent reaches them: by reflection, from the parameter types of the client's own
 * private {@code execute(Request, AsyncHandler)} (the application's class loader has them, the agent's does not), with
 * handlers and the application's future made as proxies of its interfaces. One per client class; 2.x and 3.x alike.
 */
final class AhcApi {

    final Method execute;
    final ClassLoader loader;
    final Class<?> handlerType;
    final Class<?> futureType;
    final Object proceed;
    final Object abort;
    private final Method onStatusReceived;
    private final Method onThrowable;
    private final Method statusCode;
    private final Method bodyPartLength;
    private final Method getUri;
    private final Method uriScheme;
    private final Method uriHost;
    private final Method uriPort;
    /** The request's one-shot bodies: a stream, a generator, multipart parts (which may be streams), a buffer read once. */
    private final Method[] oneShotBodies;
    private final Method bodyParts;
    private final Method toCompletableFuture;
    private final Method abortFuture;
    private final Method touch;

    AhcApi(Class<?> clientType) throws ReflectiveOperationException {
        execute = Proxies.declared(clientType, "execute", ".Request", ".AsyncHandler");
        Class<?> requestType = execute.getParameterTypes()[0];
        handlerType = execute.getParameterTypes()[1];
        futureType = execute.getReturnType();
        loader = handlerType.getClassLoader();
        Method status = null;
        Method bodyPart = null;
        Method throwable = null;
        for (Method method : handlerType.getMethods()) {
            if (method.getName().equals("onStatusReceived") && method.getParameterCount() == 1) {
                status = method;
            } else if (method.getName().equals("onBodyPartReceived") && method.getParameterCount() == 1) {
                bodyPart = method;
            } else if (method.getName().equals("onThrowable") && method.getParameterCount() == 1) {
                throwable = method;
            }
        }
        if (status == null || bodyPart == null || throwable == null) {
            throw new NoSuchMethodException("onStatusReceived, onBodyPartReceived or onThrowable on " + handlerType.getName());
        }
        onStatusReceived = status;
        onThrowable = throwable;
        statusCode = status.getParameterTypes()[0].getMethod("getStatusCode");
        bodyPartLength = bodyPart.getParameterTypes()[0].getMethod("length");
        proceed = constant(status.getReturnType(), "CONTINUE");
        abort = constant(status.getReturnType(), "ABORT");
        getUri = requestType.getMethod("getUri");
        Class<?> uriType = getUri.getReturnType();
        uriScheme = uriType.getMethod("getScheme");
        uriHost = uriType.getMethod("getHost");
        uriPort = uriType.getMethod("getPort");
        oneShotBodies = new Method[] {optional(requestType, "getStreamData"), optional(requestType, "getBodyGenerator"),
            optional(requestType, "getByteBufferData"), optional(requestType, "getByteBufData")};
        bodyParts = optional(requestType, "getBodyParts");
        toCompletableFuture = futureType.getMethod("toCompletableFuture");
        abortFuture = futureType.getMethod("abort", Throwable.class);
        touch = futureType.getMethod("touch");
    }

    private static Object constant(Class<?> enumType, String name) throws NoSuchFieldException {
        for (Object constant : enumType.getEnumConstants()) {
            if (((Enum<?>) constant).name().equals(name)) {
                return constant;
            }
        }
        throw new NoSuchFieldException(enumType.getName() + "." + name);
    }

    private static Method optional(Class<?> type, String name) {
        try {
            return type.getMethod(name);
        } catch (NoSuchMethodException e) {
            return null; // a version without this kind of body
        }
    }

    /** {@code {scheme, host, port}} of the request (port -1 when the URL names none). */
    Object[] endpoint(Object request) throws ReflectiveOperationException {
        Object uri = getUri.invoke(request);
        return uri == null ? null : new Object[] {uriScheme.invoke(uri), uriHost.invoke(uri), uriPort.invoke(uri)};
    }

    /** Whether the request can be sent twice: no body, or one held as bytes, a string, a file or form fields. */
    boolean replayable(Object request) throws ReflectiveOperationException {
        for (Method body : oneShotBodies) {
            if (body != null && body.invoke(request) != null) {
                return false;
            }
        }
        Object parts = bodyParts == null ? null : bodyParts.invoke(request);
        return parts == null || ((Collection<?>) parts).isEmpty();
    }

    Object handler(InvocationHandler attempt) {
        return Proxy.newProxyInstance(loader, new Class<?>[] {handlerType}, attempt);
    }

    Object future(InvocationHandler exchange) {
        return Proxy.newProxyInstance(loader, new Class<?>[] {futureType}, exchange);
    }

    int status(Object responseStatus) throws ReflectiveOperationException {
        return (Integer) statusCode.invoke(responseStatus);
    }

    int length(Object bodyPart) throws ReflectiveOperationException {
        return (Integer) bodyPartLength.invoke(bodyPart);
    }

    Object statusReceived(Object handler, Object responseStatus) throws Throwable {
        return Proxies.forward(onStatusReceived, handler, new Object[] {responseStatus});
    }

    /** The application's handler hears a failure; what it throws is its own, and ends there, as the client's own futures do. */
    void tellFailure(Object handler, Throwable failure) {
        try {
            onThrowable.invoke(handler, failure);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // the application's handler threw: as AsyncHttpClient itself, nothing more to tell
        }
    }

    @SuppressWarnings("unchecked")
    CompletableFuture<Object> completion(Object attemptFuture) throws ReflectiveOperationException {
        return (CompletableFuture<Object>) toCompletableFuture.invoke(attemptFuture);
    }

    void abort(Object attemptFuture, Throwable why) throws ReflectiveOperationException {
        abortFuture.invoke(attemptFuture, why);
    }

    void touch(Object attemptFuture) throws ReflectiveOperationException {
        touch.invoke(attemptFuture);
    }
}
