package dev.retryafter.agent.instrument.commonshttp3;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import org.apache.commons.httpclient.Header;
import org.apache.commons.httpclient.HostConfiguration;
import org.apache.commons.httpclient.HttpClient;
import org.apache.commons.httpclient.HttpConnectionManager;
import org.apache.commons.httpclient.HttpMethod;
import org.apache.commons.httpclient.SimpleHttpConnectionManager;
import org.apache.commons.httpclient.URI;
import org.apache.commons.httpclient.methods.EntityEnclosingMethod;
import org.apache.commons.httpclient.methods.RequestEntity;

import java.io.IOException;
import java.util.Collection;
import java.util.Iterator;

/**
 * Commons HttpClient 3 {@code HttpClient.executeMethod(HostConfiguration, HttpMethod, HttpState)},
 * which every other overload calls. The loop is {@code repeatOn}, as for Apache 4 and 5: the method
 * body runs again, with the same {@code HttpMethod}, while the exit advice returns true. 3.x runs a
 * method again itself after a redirect or an authentication challenge; before it does, the refused
 * body is discarded and the connection released, as there.
 *
 * <p>Inlined into a class file of version 46: no class literals, no string concatenation, no lambdas,
 * only calls. Types: what the client's class loader sees, plus the bootstrap {@link AgentHooks}.
 */
public final class ExecuteAdvice {

    private static final String DEFAULT_HEADERS = "http.default-headers"; // HostParams.DEFAULT_HEADERS, inlined as a constant

    private ExecuteAdvice() {
    }

    @Advice.OnMethodEnter
    static Object enter(@Advice.This HttpClient client, @Advice.Argument(0) HostConfiguration target,
                        @Advice.Argument(1) HttpMethod method) throws IOException {
        HttpConnectionManager connections = client.getHttpConnectionManager();
        if (connections instanceof SimpleHttpConnectionManager) {
            // Its one connection is this call's now: 3.x ends the response last read on it (MethodLeaseAdvice).
            AgentHooks.connectionReleased(connections);
        }
        if (method == null) {
            return null; // the client refuses it
        }
        String scheme;
        String host;
        int port;
        try {
            URI uri = method.getURI();
            if (uri.isAbsoluteURI()) {
                scheme = uri.getScheme();
                host = uri.getHost();
                port = uri.getPort();
            } else { // as the client does: the host configuration's host, the client's own when none is given
                HostConfiguration configured = target != null ? target : client.getHostConfiguration();
                scheme = configured.getProtocol() == null ? null : configured.getProtocol().getScheme();
                host = configured.getHost();
                port = configured.getPort();
            }
        } catch (IOException | RuntimeException unusable) {
            return null; // the client fails on it as it would without the agent
        }
        boolean replayable = true;
        if (method instanceof EntityEnclosingMethod) {
            RequestEntity entity = ((EntityEnclosingMethod) method).getRequestEntity();
            replayable = entity == null || entity.isRepeatable();
        }
        return AgentHooks.begin(scheme, host, port, replayable);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, repeatOn = Advice.OnNonDefaultValue.class)
    static boolean exit(@Advice.Enter Object call, @Advice.Argument(1) HttpMethod method, @Advice.Return int status,
                        @Advice.Thrown Throwable thrown) throws IOException {
        if (call == null) {
            return false;
        }
        if (thrown != null) {
            AgentHooks.failed(call);
            return false;
        }
        if (AgentHooks.wantsHeaders(call, status)) {
            try {
                for (Header header : method.getResponseHeaders()) {
                    AgentHooks.header(call, header.getName(), header.getValue());
                }
            } catch (RuntimeException unread) {
                // decided on the status and Retry-After alone
            }
        }
        Header retryAfter = status >= AgentHooks.LOWEST_REFUSAL ? method.getResponseHeader("Retry-After") : null;
        if (!AgentHooks.shouldRetry(call, status, retryAfter == null ? null : retryAfter.getValue())) {
            return false;
        }
        try {
            AgentHooks.commonsHttp3DiscardRefused(method, method.getResponseBodyAsStream());
        } catch (IOException | RuntimeException discarded) {
            // released below all the same
        }
        method.releaseConnection(); // the same method can be executed again, as 3.x does after a redirect
        try {
            // Each run of executeMethod adds the client's default headers to the method: the run to come adds them again.
            Object defaults = method.getParams().getParameter(DEFAULT_HEADERS);
            if (defaults instanceof Collection) {
                for (Iterator<?> it = ((Collection<?>) defaults).iterator(); it.hasNext(); ) {
                    method.removeRequestHeader((Header) it.next());
                }
            }
        } catch (RuntimeException kept) {
            // sent twice, as the client would send them on a method executed twice
        }
        AgentHooks.awaitRetry(call);
        return true;
    }
}
