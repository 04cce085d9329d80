package dev.retryafter.agent.instrument.commonshttp3;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.instrument.BlockingClient;
import dev.retryafter.agent.instrument.BlockingRetryLoop;
import dev.retryafter.agent.instrument.ClientMethod;
import dev.retryafter.agent.log.AgentLog;

import java.io.IOException;
import java.io.InputStream;
import java.util.Collection;

/**
 * Commons HttpClient 3's side of the one blocking loop: the response is the {@code HttpMethod} itself, which the loop
 * runs again after a refusal, as 3.x does after a redirect or an authentication challenge. By reflection: the agent
 * cannot name the client's types.
 */
public final class CommonsHttp3Calls extends BlockingClient {

    private static final String DEFAULT_HEADERS = "http.default-headers"; // HostParams.DEFAULT_HEADERS
    private static final ClientMethod RELEASE = new ClientMethod("releaseConnection");
    private static final ClientMethod PARAMS = new ClientMethod("getParams");
    private static final ClientMethod PARAMETER = new ClientMethod("getParameter", "String");
    private static final ClientMethod REMOVE_HEADER = new ClientMethod("removeRequestHeader", "Header");
    private static final String SIMPLE_MANAGER = "org.apache.commons.httpclient.SimpleHttpConnectionManager";
    private static final String ENTITY_ENCLOSING = "org.apache.commons.httpclient.methods.EntityEnclosingMethod";
    private static final ClientMethod CONNECTION_MANAGER = new ClientMethod("getHttpConnectionManager");
    private static final ClientMethod URI = new ClientMethod("getURI");
    private static final ClientMethod ABSOLUTE = new ClientMethod("isAbsoluteURI");
    private static final ClientMethod HOST_CONFIGURATION = new ClientMethod("getHostConfiguration");
    private static final ClientMethod PROTOCOL = new ClientMethod("getProtocol");
    private static final ClientMethod SCHEME = new ClientMethod("getScheme");
    private static final ClientMethod HOST = new ClientMethod("getHost");
    private static final ClientMethod PORT = new ClientMethod("getPort");
    private static final ClientMethod ENTITY = new ClientMethod("getRequestEntity");
    private static final ClientMethod REPEATABLE = new ClientMethod("isRepeatable");

    public CommonsHttp3Calls() {
        // "abort": the Abortable the body is wrapped in closes the method's connection; 3.x streams have none of their own.
        super("commonshttp3", "getResponseHeaders", "getResponseHeader", new String[] {"getResponseBodyAsStream"}, "abort");
    }

    /**
     * {@code executeMethod}'s call ({@code exchange}: the client, the host configuration passed or null, the method):
     * with the single-connection manager, its one connection is this call's now, as 3.x ends the response last read on
     * it, so that response's lease goes back; then the loop's begin, for the host the client will send the method to.
     */
    @Override
    public Call begin(BlockingRetryLoop loop, Object exchange, String scheme, String host, int port, boolean replayable,
                      boolean governNew) throws IOException {
        Object[] call = (Object[]) exchange;
        try {
            Object connections = CONNECTION_MANAGER.call(call[0]);
            if (isA(connections, SIMPLE_MANAGER)) {
                loop.connectionReleased(connections);
            }
        } catch (Throwable t) {
            AgentLog.failure("counting a released connection", t);
        }
        if (!governNew) {
            return null;
        }
        Object method = call[2];
        try { // as the client does: a relative URI goes to the host configuration's host, the client's own when none is given
            Object uri = URI.call(method);
            Object configured = Boolean.TRUE.equals(ABSOLUTE.call(uri)) ? null : call[1] != null ? call[1] : HOST_CONFIGURATION.call(call[0]);
            if (configured == null) {
                scheme = (String) SCHEME.call(uri);
            } else {
                Object protocol = PROTOCOL.call(configured);
                scheme = protocol == null ? null : (String) SCHEME.call(protocol);
            }
            host = (String) HOST.call(configured == null ? uri : configured);
            port = (Integer) PORT.call(configured == null ? uri : configured);
            Object entity = isA(method, ENTITY_ENCLOSING) ? ENTITY.call(method) : null;
            replayable = entity == null || Boolean.TRUE.equals(REPEATABLE.call(entity));
        } catch (ReflectiveOperationException | RuntimeException unusable) {
            return null; // no method, or one the client fails on as it would without the agent
        }
        return loop.begin(scheme, host, port, replayable);
    }

    /** Whether {@code object} is an instance of the client's class {@code type}, which the agent cannot name. */
    private static boolean isA(Object object, String type) {
        for (Class<?> c = object == null ? null : object.getClass(); c != null; c = c.getSuperclass()) {
            if (c.getName().equals(type)) {
                return true;
            }
        }
        return false;
    }

    /** The body, with an abort that closes the method's connection ({@link RefusedMethodBody}); none: 3.x gave it back already. */
    @Override
    protected InputStream refusedBody(Object method) throws ReflectiveOperationException {
        InputStream body = super.refusedBody(method);
        return body == null ? null : new RefusedMethodBody.Abortable(body, method);
    }

    /**
     * Released, the same method can be executed again, as 3.x does after a redirect. Each run of {@code executeMethod}
     * adds the client's default headers to the method: the run to come adds them again, so they go now.
     */
    @Override
    protected void release(Object method) throws ReflectiveOperationException {
        RELEASE.call(method);
        try {
            Object defaults = PARAMETER.call(PARAMS.call(method), DEFAULT_HEADERS);
            if (defaults instanceof Collection) {
                for (Object header : (Collection<?>) defaults) {
                    REMOVE_HEADER.call(method, header);
                }
            }
        } catch (ReflectiveOperationException | RuntimeException kept) {
            // sent twice, as the client would send them on a method executed twice
        }
    }
}
