package dev.retryafter.agent.instrument.apache5;

import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;

/**
 * What the agent's loop calls on one HttpClient 5 classic client class, by method handle: the agent
 * cannot name the client's types, which its class loader does not see. Found once per class that
 * declares {@code doExecute}, from that class's own loader.
 *
 * <p>{@code doExecute} is called virtually, as {@code execute} calls it: both classes that declare it
 * can be subclassed only inside Apache's own package, where nothing overrides it.
 */
final class Apache5Handles {

    private static final String CORE = "org.apache.hc.core5.http.";

    private final MethodHandle doExecute;
    private final MethodHandle determineHost;
    private final MethodHandle schemeName;
    private final MethodHandle hostName;
    private final MethodHandle port;
    private final MethodHandle requestEntity;
    private final MethodHandle repeatable;
    private final MethodHandle code;
    private final MethodHandle firstHeader;
    private final MethodHandle headerValue;
    private final MethodHandle responseEntity;
    private final MethodHandle content;

    private Apache5Handles(Class<?> declaring) throws ReflectiveOperationException {
        ClassLoader loader = declaring.getClassLoader();
        Class<?> httpHost = Class.forName(CORE + "HttpHost", false, loader);
        Class<?> classicRequest = Class.forName(CORE + "ClassicHttpRequest", false, loader);
        Class<?> httpContext = Class.forName(CORE + "protocol.HttpContext", false, loader);
        Class<?> entityContainer = Class.forName(CORE + "HttpEntityContainer", false, loader);
        Class<?> httpEntity = Class.forName(CORE + "HttpEntity", false, loader);
        Class<?> httpResponse = Class.forName(CORE + "HttpResponse", false, loader);
        Class<?> messageHeaders = Class.forName(CORE + "MessageHeaders", false, loader);
        Class<?> header = Class.forName(CORE + "NameValuePair", false, loader);
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();

        Method declared = declaring.getDeclaredMethod("doExecute", httpHost, classicRequest, httpContext);
        declared.setAccessible(true); // protected
        doExecute = generic(MethodHandles.lookup().unreflect(declared));
        // MinimalHttpClient refuses a null target itself; InternalHttpClient takes it from the request, with this.
        determineHost = declaring.getName().endsWith(".MinimalHttpClient") ? null
                : generic(lookup.findStatic(Class.forName("org.apache.hc.client5.http.routing.RoutingSupport", false, loader),
                        "determineHost", MethodType.methodType(httpHost, Class.forName(CORE + "HttpRequest", false, loader))));
        schemeName = generic(lookup.findVirtual(httpHost, "getSchemeName", MethodType.methodType(String.class)));
        hostName = generic(lookup.findVirtual(httpHost, "getHostName", MethodType.methodType(String.class)));
        port = generic(lookup.findVirtual(httpHost, "getPort", MethodType.methodType(int.class)));
        requestEntity = generic(lookup.findVirtual(entityContainer, "getEntity", MethodType.methodType(httpEntity)));
        repeatable = generic(lookup.findVirtual(httpEntity, "isRepeatable", MethodType.methodType(boolean.class)));
        code = generic(lookup.findVirtual(httpResponse, "getCode", MethodType.methodType(int.class)));
        firstHeader = generic(lookup.findVirtual(messageHeaders, "getFirstHeader",
                MethodType.methodType(Class.forName(CORE + "Header", false, loader), String.class)));
        headerValue = generic(lookup.findVirtual(header, "getValue", MethodType.methodType(String.class)));
        responseEntity = requestEntity; // both are HttpEntityContainer's
        content = generic(lookup.findVirtual(httpEntity, "getContent", MethodType.methodType(InputStream.class)));
    }

    static Apache5Handles of(Class<?> declaring) throws ReflectiveOperationException {
        return new Apache5Handles(declaring);
    }

    /** The client's own request, sent once: what the advice skipped, run with the agent's call marked as this thread's. */
    Object doExecute(Object client, Object target, Object request, Object context) throws Throwable {
        return (Object) doExecute.invokeExact(client, target, request, context);
    }

    /** The target, as {@code InternalHttpClient} takes it from a request without one; null where the client refuses it. */
    Object targetOf(Object request) throws Throwable {
        return determineHost == null ? null : (Object) determineHost.invokeExact(request);
    }

    String scheme(Object host) throws Throwable {
        return (String) schemeName.invokeExact(host);
    }

    String hostName(Object host) throws Throwable {
        return (String) hostName.invokeExact(host);
    }

    int port(Object host) throws Throwable {
        return (int) port.invokeExact(host);
    }

    /** Whether the request may be sent again: no body, or one that can be read again. */
    boolean replayable(Object request) throws Throwable {
        Object entity = (Object) requestEntity.invokeExact(request);
        return entity == null || (boolean) repeatable.invokeExact(entity);
    }

    int code(Object response) throws Throwable {
        return (int) code.invokeExact(response);
    }

    /** The response's first {@code name} header's value, or null. */
    String header(Object response, String name) throws Throwable {
        Object found = (Object) firstHeader.invokeExact(response, name);
        return found == null ? null : (String) headerValue.invokeExact(found);
    }

    /** The response's body, or null when it has none. */
    InputStream body(Object response) throws Throwable {
        Object entity = (Object) responseEntity.invokeExact(response);
        return entity == null ? null : (InputStream) content.invokeExact(entity);
    }

    /** Every client type as {@code Object} (the JDK's kept), so the loop calls with {@code invokeExact}. */
    private static MethodHandle generic(MethodHandle handle) {
        MethodType type = handle.type();
        for (int i = 0; i < type.parameterCount(); i++) {
            type = type.changeParameterType(i, seen(type.parameterType(i)));
        }
        return handle.asType(type.changeReturnType(seen(type.returnType())));
    }

    private static Class<?> seen(Class<?> type) {
        return type.isPrimitive() || type.getName().startsWith("java.") ? type : Object.class;
    }
}
