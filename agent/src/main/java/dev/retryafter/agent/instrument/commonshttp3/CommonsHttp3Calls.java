package dev.retryafter.agent.instrument.commonshttp3;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.instrument.BlockingClient;
import dev.retryafter.agent.instrument.BlockingRetryLoop;
import dev.retryafter.agent.instrument.CancellableCalls;
import dev.retryafter.agent.instrument.ModuleHooks;
import dev.retryafter.agent.log.AgentLog;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.Collection;

/**
 * Commons HttpClient 3's side of the one blocking loop: the response is the {@code HttpMethod} itself, which the loop
 * runs again after a refusal, as 3.x does after a redirect or an authentication challenge. By reflection, the agent
 * cannot name the client's types: with the methods found once per class ({@link CommonsHttp3Api}), a call's host is a
 * few invocations, read from the method's own host where its URI is absolute ({@code getURI()} would make and parse a
 * new URI each time, which cost ten times the rest).
 */
public final class CommonsHttp3Calls extends BlockingClient implements ModuleHooks {

    /** A method was aborted: the method. */
    static final String CANCELLED = "commonshttp3.cancelled";

    private static final String DEFAULT_HEADERS = "http.default-headers"; // HostParams.DEFAULT_HEADERS

    /** The client's methods, found once per class ({@link CommonsHttp3Api}). */
    private final CommonsHttp3Api.ByClass api = new CommonsHttp3Api.ByClass();
    /** Each governed method's call, for its abort to end its wait. */
    private final CancellableCalls cancels = new CancellableCalls("isAborted");

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
        Object client = call[0];
        CommonsHttp3Api methods = api.get(client.getClass());
        try {
            Object connections = methods.connectionManager.invoke(client);
            if (methods.simpleManager.isInstance(connections)) {
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
            boolean keepsHost = methods.keepsHost(method); // its own host, set when its URI is absolute: no URI made and parsed
            Object own = keepsHost ? methods.methodHost.get(method) : null;
            Object uri = keepsHost ? null : methods.uri.invoke(method);
            boolean absolute = keepsHost ? own != null : Boolean.TRUE.equals(methods.absolute.invoke(uri));
            Object configured = absolute ? null : call[1] != null ? call[1] : methods.clientHostConfiguration.invoke(client);
            if (own != null) {
                scheme = (String) methods.protocolScheme.invoke(methods.hostProtocol.invoke(own));
                host = (String) methods.hostName.invoke(own);
                port = (Integer) methods.hostPort.invoke(own);
            } else if (configured == null) {
                scheme = (String) methods.uriScheme.invoke(uri);
                host = (String) methods.uriHost.invoke(uri);
                port = (Integer) methods.uriPort.invoke(uri);
            } else {
                Object protocol = methods.protocol.invoke(configured);
                scheme = protocol == null ? null : (String) methods.protocolScheme.invoke(protocol);
                host = (String) methods.configuredHost.invoke(configured);
                port = (Integer) methods.configuredPort.invoke(configured);
            }
            Object entity = methods.entityEnclosing.isInstance(method) ? methods.requestEntity.invoke(method) : null;
            replayable = entity == null || Boolean.TRUE.equals(methods.repeatable.invoke(entity));
        } catch (ReflectiveOperationException | RuntimeException unusable) {
            return null; // no method, or one the client fails on as it would without the agent
        }
        return loop.begin(scheme, host, port, replayable, cancels, method);
    }

    @Override
    public String[] hooks() {
        return new String[] {CANCELLED};
    }

    @Override
    public Object call(String hook, Object[] a, NewCalls newCalls) {
        cancels.cancelled(a[0]);
        return null;
    }

    /** As the client fails a method aborted in its exchange; executed again, an aborted method throws an IllegalStateException. */
    @Override
    protected IOException cancelledWhileWaiting(String host) {
        return new InterruptedIOException("Method has been aborted (while waiting out a refusal from " + host + ")");
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
        CommonsHttp3Api methods = api.get(method.getClass());
        methods.release.invoke(method);
        try {
            Object defaults = methods.parameter.invoke(methods.params.invoke(method), DEFAULT_HEADERS);
            if (defaults instanceof Collection) {
                for (Object header : (Collection<?>) defaults) {
                    methods.removeHeader.invoke(method, header);
                }
            }
        } catch (ReflectiveOperationException | RuntimeException kept) {
            // sent twice, as the client would send them on a method executed twice
        }
    }
}
