package dev.retryafter.agent.instrument.reactornetty;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Reactor Netty's and Reactor's types, as the agent reaches them: by reflection, from the client's class loader (the
 * agent's has neither), found once per client class. Reactor's operators take {@code java.util.function} types, so the
 * agent's steps are plain classes of its own; only {@code Mono} itself is Reactor's.
 */
final class ReactorApi {

    private final Method configuration;
    private final Method uri;
    private final Method baseUrl;
    private final Method method;
    private final Field body;
    private final Field deferredConf;
    private final Method defer;
    private final Method fromFuture;
    private final Method just;
    private final Method flatMap;
    private final Method doOnError;
    private final Method doOnCancel;
    private final Method subscribe;
    private final Method status;
    private final Method code;
    private final Method responseHeaders;
    private final Method dispose;
    private final Method onTerminate;
    private final Class<?> publisherType;
    private final Class<?> referenceCounted;
    private final Method scannableFrom;
    private final Method scanUnsafe;
    private final Object parent;

    ReactorApi(Class<?> clientType) throws ReflectiveOperationException {
        ClassLoader loader = clientType.getClassLoader();
        configuration = clientType.getMethod("configuration");
        configuration.setAccessible(true); // declared by a class of the package's own
        Class<?> configType = Class.forName("reactor.netty.http.client.HttpClientConfig", false, loader);
        uri = configType.getMethod("uri");
        baseUrl = configType.getMethod("baseUrl");
        method = configType.getMethod("method");
        body = configType.getDeclaredField("body");
        body.setAccessible(true);
        deferredConf = configType.getDeclaredField("deferredConf");
        deferredConf.setAccessible(true);
        Class<?> monoType = Class.forName("reactor.core.publisher.Mono", false, loader);
        defer = monoType.getMethod("defer", Supplier.class);
        fromFuture = monoType.getMethod("fromFuture", CompletableFuture.class);
        just = monoType.getMethod("just", Object.class);
        flatMap = monoType.getMethod("flatMap", Function.class);
        doOnError = monoType.getMethod("doOnError", Consumer.class);
        doOnCancel = monoType.getMethod("doOnCancel", Runnable.class);
        subscribe = monoType.getMethod("subscribe", Consumer.class, Consumer.class, Runnable.class);
        Class<?> responseType = Class.forName("reactor.netty.http.client.HttpClientResponse", false, loader);
        status = responseType.getMethod("status");
        code = status.getReturnType().getMethod("code");
        responseHeaders = responseType.getMethod("responseHeaders");
        Class<?> connectionType = Class.forName("reactor.netty.Connection", false, loader);
        dispose = connectionType.getMethod("dispose");
        onTerminate = connectionType.getMethod("onTerminate");
        publisherType = Class.forName("org.reactivestreams.Publisher", false, loader);
        referenceCounted = Class.forName("io.netty.util.ReferenceCounted", false, loader);
        Class<?> scannable = Class.forName("reactor.core.Scannable", false, loader);
        scannableFrom = scannable.getMethod("from", Object.class);
        Class<?> attr = Class.forName("reactor.core.Scannable$Attr", false, loader);
        scanUnsafe = scannable.getMethod("scanUnsafe", attr);
        parent = attr.getField("PARENT").get(null);
    }

    /**
     * {@code {scheme, host, port, replayable}} of the request the client is configured with, or null when the agent
     * cannot name its host now: a relative URI sent to a remote address, or a URI only known later ({@code uri(Mono)}).
     */
    Object[] request(Object client) throws ReflectiveOperationException {
        Object config = configuration.invoke(client);
        if (deferredConf.get(config) != null) {
            return null;
        }
        String target = (String) uri.invoke(config);
        if (target == null) {
            target = "/";
        }
        String base = (String) baseUrl.invoke(config);
        if (base != null && target.startsWith("/")) {
            target = (base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + target;
        }
        URI parsed;
        try {
            parsed = URI.create(target);
        } catch (IllegalArgumentException e) {
            return null; // the client's to refuse or resolve
        }
        String scheme = parsed.getScheme();
        if (parsed.getHost() == null || !("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))) {
            return null;
        }
        return new Object[] {scheme, parsed.getHost(), parsed.getPort(), replayable(config)};
    }

    /**
     * Whether each attempt can send the request's body again. No body; a body given to {@code send(Publisher)} whose
     * source is a value Reactor hands every subscriber ({@code Mono.just("…")}, not a {@code ByteBuf}, which is
     * released once written); or, for a body function the agent cannot see into (Spring's {@code WebClient} always
     * gives one), a method that sends no body (GET, HEAD, OPTIONS, TRACE). Anything else is one-shot.
     */
    private boolean replayable(Object config) throws ReflectiveOperationException {
        Object sender = body.get(config);
        if (sender == null) {
            return true;
        }
        if (sender.getClass().getName().startsWith("reactor.netty.http.client.HttpClientFinalizer$$Lambda")) {
            Field[] captured = sender.getClass().getDeclaredFields(); // send(Publisher)'s lambda holds the publisher alone
            if (captured.length != 1) {
                return false; // sendForm: a form may hold a stream
            }
            captured[0].setAccessible(true);
            Object given = captured[0].get(sender);
            return publisherType.isInstance(given) && repeats(given);
        }
        String name = String.valueOf(method.invoke(config));
        return name.equals("GET") || name.equals("HEAD") || name.equals("OPTIONS") || name.equals("TRACE");
    }

    /**
     * Whether a publisher's first source hands each subscriber its values anew: one of Reactor's that hold values
     * ({@code Mono.just}, {@code Flux.just}, empty), none of them a Netty buffer (released once written); or a value
     * mapped per subscriber by Reactor's or Reactor Netty's own fusion ({@code ByteBufFlux.fromString(Mono.just(…))}).
     * An application's {@code fromCallable}, a sink, a stream or a file are one-shot to the agent.
     */
    private boolean repeats(Object publisher) throws ReflectiveOperationException {
        Object source = scannableFrom.invoke(null, publisher);
        for (int depth = 0; depth < 64; depth++) {
            Object up = scanUnsafe.invoke(source, parent);
            if (up == null || !up.getClass().getName().startsWith("reactor.")) {
                break;
            }
            source = up;
        }
        Class<?> type = source.getClass();
        if (!type.getName().startsWith("reactor.core.publisher.")) {
            return false;
        }
        switch (type.getSimpleName()) {
            case "MonoJust":
            case "FluxJust":
            case "MonoEmpty":
            case "FluxEmpty":
                try {
                    return notABuffer(((Callable<?>) source).call());
                } catch (Exception e) {
                    return false;
                }
            case "FluxArray":
                for (Object value : (Object[]) field(source, "array")) {
                    if (!notABuffer(value)) {
                        return false;
                    }
                }
                return true;
            case "MonoCallable":
                return field(source, "callable").getClass().getName().startsWith("reactor.");
            case "MonoSupplier":
                return field(source, "supplier").getClass().getName().startsWith("reactor.");
            default:
                return false;
        }
    }

    private boolean notABuffer(Object value) {
        return value == null || !referenceCounted.isInstance(value);
    }

    private static Object field(Object owner, String name) throws ReflectiveOperationException {
        Field field = owner.getClass().getDeclaredField(name);
        field.setAccessible(true);
        return field.get(owner);
    }

    Object defer(Supplier<Object> supplier) throws ReflectiveOperationException {
        return defer.invoke(null, supplier);
    }

    Object fromFuture(CompletableFuture<?> future) throws ReflectiveOperationException {
        return fromFuture.invoke(null, future);
    }

    Object just(Object value) throws ReflectiveOperationException {
        return just.invoke(null, value);
    }

    Object flatMap(Object mono, Function<Object, Object> step) throws ReflectiveOperationException {
        return flatMap.invoke(mono, step);
    }

    Object doOnError(Object mono, Consumer<Throwable> step) throws ReflectiveOperationException {
        return doOnError.invoke(mono, step);
    }

    Object doOnCancel(Object mono, Runnable step) throws ReflectiveOperationException {
        return doOnCancel.invoke(mono, step);
    }

    int status(Object response) throws ReflectiveOperationException {
        return (Integer) code.invoke(status.invoke(response));
    }

    /** Netty's {@code HttpHeaders}: name and value pairs. */
    Iterable<?> headers(Object response) throws ReflectiveOperationException {
        return (Iterable<?>) responseHeaders.invoke(response);
    }

    /** A refused response's connection closed: its body unread, never pooled; the retry takes another. */
    void close(Object response) throws ReflectiveOperationException {
        dispose.invoke(response);
    }

    /** {@code ended} hears when the response's exchange is over: its body read or discarded, or its connection gone. */
    void whenOver(Object response, ExchangeEnded ended) throws ReflectiveOperationException {
        subscribe.invoke(onTerminate.invoke(response), ended, ended, ended);
    }

    /** Told once an exchange handed to the application is over, by its completion or its failure alike. */
    interface ExchangeEnded extends Consumer<Object>, Runnable {
    }

    static String header(Object entry, boolean name) {
        Map.Entry<?, ?> header = (Map.Entry<?, ?>) entry;
        return String.valueOf(name ? header.getKey() : header.getValue());
    }
}
