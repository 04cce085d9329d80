package dev.retryafter.agent.instrument.vertx;

import dev.retryafter.agent.log.AgentLog;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * Vert.x WebClient's {@code HttpContext} and what it hands out, as the agent reaches them: by reflection on the public
 * methods of the context's class (the application's class loader has them), found once per class.
 */
final class VertxApi {

    final ClassLoader loader;
    final Class<?> handlerType;
    private final Method phase;
    private final Method next;
    private final Method fail;
    private final Method requestOptions;
    private final Method createRequest;
    private final Method prepareRequest;
    private final Method request;
    private final Method contentType;
    private final Class<?> bufferType;
    private final Method copy;
    private final Method response;
    private final Method body;
    private final Method get;
    private final Method set;
    private final Field vertxContext;
    private final Method runOnContext;
    private final Method statusCode;
    private final Method headers;
    private final Method host;
    private final Method port;
    private final Method ssl;
    private final Class<?> readStream;
    private final Class<?> pipe;

    VertxApi(Class<?> contextType) throws ReflectiveOperationException {
        loader = contextType.getClassLoader();
        handlerType = Class.forName("io.vertx.core.Handler", false, loader);
        readStream = Class.forName("io.vertx.core.streams.ReadStream", false, loader);
        pipe = Class.forName("io.vertx.core.streams.Pipe", false, loader);
        phase = contextType.getMethod("phase");
        next = contextType.getMethod("next");
        fail = contextType.getMethod("fail", Throwable.class);
        requestOptions = contextType.getMethod("requestOptions");
        createRequest = contextType.getMethod("createRequest", requestOptions.getReturnType());
        request = contextType.getMethod("request");
        contentType = contextType.getMethod("contentType");
        prepareRequest = contextType.getMethod("prepareRequest", request.getReturnType(), String.class, Object.class);
        bufferType = Class.forName("io.vertx.core.buffer.Buffer", false, loader);
        copy = bufferType.getMethod("copy");
        response = contextType.getMethod("response");
        body = contextType.getMethod("body");
        get = contextType.getMethod("get", String.class);
        set = contextType.getMethod("set", String.class, Object.class);
        vertxContext = contextType.getDeclaredField("context");
        vertxContext.setAccessible(true);
        runOnContext = Class.forName("io.vertx.core.Context", false, loader).getMethod("runOnContext", handlerType);
        Class<?> responseType = response.getReturnType();
        statusCode = responseType.getMethod("statusCode");
        headers = responseType.getMethod("headers");
        Class<?> optionsType = requestOptions.getReturnType();
        host = optionsType.getMethod("getHost");
        port = optionsType.getMethod("getPort");
        ssl = optionsType.getMethod("isSsl");
    }

    String phase(Object context) throws ReflectiveOperationException {
        return ((Enum<?>) phase.invoke(context)).name();
    }

    /** The next interceptor, or the phase's own work; what it throws is Vert.x's and the application's. */
    void next(Object context) {
        try {
            next.invoke(context);
        } catch (InvocationTargetException e) {
            throw rethrow(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** When the context's shape is unknown: its {@code next()}, found afresh, so the request is not left hanging. */
    static void nextAnyway(Object context) {
        try {
            context.getClass().getMethod("next").invoke(context);
        } catch (InvocationTargetException e) {
            throw rethrow(e.getCause());
        } catch (ReflectiveOperationException | RuntimeException e) {
            AgentLog.failure("resuming a Vert.x request", e);
        }
    }

    void fail(Object context, Throwable failure) {
        try {
            fail.invoke(context, failure);
        } catch (InvocationTargetException e) {
            throw rethrow(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    Object requestOptions(Object context) throws ReflectiveOperationException {
        return requestOptions.invoke(context);
    }

    void createRequest(Object context, Object options) throws ReflectiveOperationException {
        createRequest.invoke(context, options);
    }

    /** The request's body and content type as the application gave them, before Vert.x prepares them; null body for none. */
    Object[] bodyAsGiven(Object context) throws ReflectiveOperationException {
        return new Object[] {sendable(body.invoke(context)), contentType.invoke(context)};
    }

    /** A body to send: a buffer is consumed by sending it, so each send gets its own copy; anything else Vert.x prepares anew. */
    Object sendable(Object given) throws ReflectiveOperationException {
        return bufferType.isInstance(given) ? copy.invoke(given) : given;
    }

    /** The request prepared and sent again from its start, its body as given: {@code PREPARE_REQUEST} and on. */
    void prepareAgain(Object context, Object[] bodyAsGiven) throws ReflectiveOperationException {
        prepareRequest.invoke(context, request.invoke(context), bodyAsGiven[1], sendable(bodyAsGiven[0]));
    }

    Object response(Object context) throws ReflectiveOperationException {
        return response.invoke(context);
    }

    /**
     * Whether the request's body can be sent twice: none, or one Vert.x holds (buffer, string, JSON, form); not a stream
     * ({@code sendStream} hands the context a {@code Pipe} of it in 5, the stream itself in 4).
     */
    boolean replayable(Object context) throws ReflectiveOperationException {
        Object held = body.invoke(context);
        return held == null || !(readStream.isInstance(held) || pipe.isInstance(held));
    }

    Object get(Object context, String key) throws ReflectiveOperationException {
        return get.invoke(context, key);
    }

    void set(Object context, String key, Object value) throws ReflectiveOperationException {
        set.invoke(context, key, value);
    }

    Object vertxContext(Object context) throws IllegalAccessException {
        return vertxContext.get(context);
    }

    void runOnContext(Object vertxContext, Object handler) throws ReflectiveOperationException {
        runOnContext.invoke(vertxContext, handler);
    }

    int status(Object response) throws ReflectiveOperationException {
        return (Integer) statusCode.invoke(response);
    }

    Iterable<?> headers(Object response) throws ReflectiveOperationException {
        return (Iterable<?>) headers.invoke(response);
    }

    String host(Object options) throws ReflectiveOperationException {
        return (String) host.invoke(options);
    }

    int port(Object options) throws ReflectiveOperationException {
        Integer value = (Integer) port.invoke(options);
        return value == null ? -1 : value;
    }

    boolean ssl(Object options) throws ReflectiveOperationException {
        return Boolean.TRUE.equals(ssl.invoke(options));
    }

    private static RuntimeException rethrow(Throwable cause) {
        if (cause instanceof RuntimeException) {
            return (RuntimeException) cause;
        }
        if (cause instanceof Error) {
            throw (Error) cause;
        }
        return new IllegalStateException(cause);
    }
}
