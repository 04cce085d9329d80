package dev.retryafter.it.apps.java8;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.TimeUnit;

/**
 * Jetty HttpClient 9.4, 10 or 11, used as an application uses it ({@code newRequest}, {@code header}, {@code send()},
 * {@code send(listener)}), but through reflection: this module compiles against Jetty 12, whose types have the same
 * names in other packages, and one child JVM carries one of 9.4, 10 and 11. Java 8 bytecode.
 */
public final class JettyLegacyClient implements AutoCloseable {

    private final Object client;
    private final ClassLoader loader;

    public JettyLegacyClient() throws Exception {
        loader = JettyLegacyClient.class.getClassLoader();
        client = Class.forName("org.eclipse.jetty.client.HttpClient", true, loader).getConstructor().newInstance();
        call(client, "start");
    }

    /** A new request for {@code url} with a timeout, and the header named if any. */
    public Object request(String url, String header, String value) throws Exception {
        Object request = client.getClass().getMethod("newRequest", String.class).invoke(client, url);
        request = api("api.Request").getMethod("timeout", long.class, TimeUnit.class).invoke(request, 30L, TimeUnit.SECONDS);
        if (header != null) {
            request = api("api.Request").getMethod("header", String.class, String.class).invoke(request, header, value);
        }
        return request;
    }

    /**
     * A POST of {@code body}: as a stream Jetty cannot produce twice, or as a string it can. 10 and 11 as their own
     * API has it ({@code body(Request.Content)}), 9.4 with a {@code ContentProvider}.
     */
    public Object post(String url, String body, boolean once) throws Exception {
        Object request = request(url, null, null);
        request = api("api.Request").getMethod("method", String.class).invoke(request, "POST");
        byte[] bytes = body.getBytes("UTF-8");
        try {
            Class<?> content = api("api.Request$Content");
            Object given = once
                    ? api("util.InputStreamRequestContent").getConstructor(java.io.InputStream.class)
                            .newInstance(new java.io.ByteArrayInputStream(bytes))
                    : api("util.StringRequestContent").getConstructor(String.class).newInstance(body);
            return api("api.Request").getMethod("body", content).invoke(request, given);
        } catch (ClassNotFoundException nine) {
            // 9.4: below
        }
        Class<?> provider = api("api.ContentProvider");
        Object content = once
                ? api("util.InputStreamContentProvider").getConstructor(java.io.InputStream.class)
                        .newInstance(new java.io.ByteArrayInputStream(bytes))
                : api("util.StringContentProvider").getConstructor(String.class).newInstance(body);
        return api("api.Request").getMethod("content", provider).invoke(request, content);
    }

    /** {@code send()}: the response, its body read by Jetty. */
    public Object send(Object request) throws Exception {
        return call(request, "send");
    }

    /** {@code send(listener)} with Jetty's own {@code FutureResponseListener}, waited on: the listener path. */
    public Object sendWithListener(Object request) throws Exception {
        Object listener = api("util.FutureResponseListener").getConstructor(api("api.Request")).newInstance(request);
        api("api.Request").getMethod("send", api("api.Response$CompleteListener")).invoke(request, listener);
        return listener.getClass().getMethod("get", long.class, TimeUnit.class).invoke(listener, 120L, TimeUnit.SECONDS);
    }

    public static int status(Object response) throws Exception {
        return (Integer) call(response, "getStatus");
    }

    public static int bodyLength(Object contentResponse) throws Exception {
        return ((byte[]) call(contentResponse, "getContent")).length;
    }

    private Class<?> api(String name) throws ClassNotFoundException {
        return Class.forName("org.eclipse.jetty.client." + name, false, loader);
    }

    /** A public no-argument method, as the public interface or class that declares it names it. */
    private static Object call(Object target, String name) throws Exception {
        for (Class<?> type = target.getClass(); type != null; type = type.getSuperclass()) {
            for (Class<?> declaring : withInterfaces(type)) {
                if (!java.lang.reflect.Modifier.isPublic(declaring.getModifiers())) {
                    continue;
                }
                try {
                    Method method = declaring.getMethod(name);
                    try {
                        return method.invoke(target);
                    } catch (InvocationTargetException e) {
                        throw e.getCause() instanceof Exception ? (Exception) e.getCause() : new RuntimeException(e.getCause());
                    }
                } catch (NoSuchMethodException next) {
                    // on
                }
            }
        }
        throw new NoSuchMethodException(name + " on " + target.getClass());
    }

    private static Class<?>[] withInterfaces(Class<?> type) {
        Class<?>[] interfaces = type.getInterfaces();
        Class<?>[] all = new Class<?>[interfaces.length + 1];
        all[0] = type;
        System.arraycopy(interfaces, 0, all, 1, interfaces.length);
        return all;
    }

    @Override
    public void close() throws Exception {
        call(client, "stop");
    }
}
