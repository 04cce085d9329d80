package dev.retryafter.agent.instrument.commonshttp3;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * Commons HttpClient 3's types and methods, as {@link CommonsHttp3Calls} reaches them by reflection (the agent cannot
 * name them): found once per class loader that has the client, at its first governed call, so that a call does a few
 * invocations of methods already found, and a JVM without the client finds none.
 */
final class CommonsHttp3Api {

    private static final String PACKAGE = "org.apache.commons.httpclient.";

    final Class<?> simpleManager;
    final Class<?> entityEnclosing;
    final Method connectionManager;
    final Method clientHostConfiguration;
    final Method uri;
    final Method absolute;
    final Method uriScheme;
    final Method uriHost;
    final Method uriPort;
    final Method protocol;
    final Method protocolScheme;
    final Method configuredHost;
    final Method configuredPort;
    /**
     * {@code HttpMethodBase}'s private {@code httphost}, set exactly when the method's URI is absolute ({@code getURI()}
     * builds a new URI from it each time, parsed again): its host is read from it instead. Null where it is not found or
     * cannot be read: the URI is asked for.
     */
    final Field methodHost;
    final Method hostName;
    final Method hostPort;
    final Method hostProtocol;
    final Method requestEntity;
    final Method repeatable;
    final Method release;
    final Method params;
    final Method parameter;
    final Method removeHeader;

    /** The client's types, as {@code loader} has them. */
    CommonsHttp3Api(ClassLoader loader) throws ReflectiveOperationException {
        Class<?> client = type(loader, "HttpClient");
        Class<?> method = type(loader, "HttpMethod");
        Class<?> uriType = type(loader, "URI");
        Class<?> configuration = type(loader, "HostConfiguration");
        simpleManager = type(loader, "SimpleHttpConnectionManager");
        entityEnclosing = type(loader, "methods.EntityEnclosingMethod");
        connectionManager = client.getMethod("getHttpConnectionManager");
        clientHostConfiguration = client.getMethod("getHostConfiguration");
        uri = method.getMethod("getURI");
        absolute = uriType.getMethod("isAbsoluteURI");
        uriScheme = uriType.getMethod("getScheme");
        uriHost = uriType.getMethod("getHost");
        uriPort = uriType.getMethod("getPort");
        protocol = configuration.getMethod("getProtocol");
        protocolScheme = type(loader, "protocol.Protocol").getMethod("getScheme");
        configuredHost = configuration.getMethod("getHost");
        configuredPort = configuration.getMethod("getPort");
        methodHost = readable(type(loader, "HttpMethodBase"), "httphost");
        Class<?> httpHost = type(loader, "HttpHost");
        hostName = httpHost.getMethod("getHostName");
        hostPort = httpHost.getMethod("getPort");
        hostProtocol = httpHost.getMethod("getProtocol");
        requestEntity = entityEnclosing.getMethod("getRequestEntity");
        repeatable = type(loader, "methods.RequestEntity").getMethod("isRepeatable");
        release = method.getMethod("releaseConnection");
        params = method.getMethod("getParams");
        parameter = type(loader, "params.HttpParams").getMethod("getParameter", String.class);
        removeHeader = method.getMethod("removeRequestHeader", type(loader, "Header"));
    }

    /** Whether {@code method}'s host is read from its field ({@link #methodHost}): an {@code HttpMethodBase}, the field found. */
    boolean keepsHost(Object method) {
        return methodHost != null && methodHost.getDeclaringClass().isInstance(method);
    }

    private static Field readable(Class<?> type, String name) {
        try {
            Field field = type.getDeclaredField(name);
            field.setAccessible(true);
            return field;
        } catch (NoSuchFieldException | RuntimeException notReadable) {
            return null;
        }
    }

    private static Class<?> type(ClassLoader loader, String name) throws ClassNotFoundException {
        return Class.forName(PACKAGE + name, false, loader);
    }

    /**
     * Once per class of the client's (its {@code HttpClient}, a method): the client as that class's loader has it. What
     * is not found is thrown, and the dispatcher's boundary logs it once: the call runs as the client alone would.
     */
    static final class ByClass extends ClassValue<CommonsHttp3Api> { // a class, not a lambda: see AgentInstaller
        @Override
        protected CommonsHttp3Api computeValue(Class<?> type) {
            try {
                return new CommonsHttp3Api(type.getClassLoader());
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                throw new IllegalStateException("not a Commons HttpClient 3 of a known shape: " + type.getName(), e);
            }
        }
    }
}
