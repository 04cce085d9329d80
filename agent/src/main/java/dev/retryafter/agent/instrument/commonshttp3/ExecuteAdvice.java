package dev.retryafter.agent.instrument.commonshttp3;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import org.apache.commons.httpclient.HostConfiguration;
import org.apache.commons.httpclient.HttpClient;
import org.apache.commons.httpclient.HttpConnectionManager;
import org.apache.commons.httpclient.HttpMethod;
import org.apache.commons.httpclient.SimpleHttpConnectionManager;
import org.apache.commons.httpclient.URI;
import org.apache.commons.httpclient.methods.EntityEnclosingMethod;
import org.apache.commons.httpclient.methods.RequestEntity;

import java.io.IOException;

/**
 * Commons HttpClient 3 {@code HttpClient.executeMethod(HostConfiguration, HttpMethod, HttpState)}, which every other
 * overload calls: hands the host over, then each attempt's method to the one blocking loop ({@link CommonsHttp3Calls}),
 * and runs the body again, with the same method, while it says so ({@code repeatOn}). Inlined into a class file of
 * version 46: no class literals, no string concatenation, no lambdas, only calls.
 */
public final class ExecuteAdvice {

    private ExecuteAdvice() {
    }

    @Advice.OnMethodEnter
    static Object enter(@Advice.This HttpClient client, @Advice.Argument(0) HostConfiguration target,
                        @Advice.Argument(1) HttpMethod method) throws IOException {
        HttpConnectionManager connections = client.getHttpConnectionManager();
        if (connections instanceof SimpleHttpConnectionManager) {
            AgentHooks.connectionReleased(connections); // its one connection is this call's now: 3.x ends the response last read on it
        }
        String scheme;
        String host;
        int port;
        try { // as the client does: a relative URI goes to the host configuration's host, the client's own when none is given
            URI uri = method.getURI();
            HostConfiguration configured = uri.isAbsoluteURI() ? null : target != null ? target : client.getHostConfiguration();
            scheme = configured == null ? uri.getScheme() : configured.getProtocol() == null ? null : configured.getProtocol().getScheme();
            host = configured == null ? uri.getHost() : configured.getHost();
            port = configured == null ? uri.getPort() : configured.getPort();
        } catch (IOException | RuntimeException unusable) {
            return null; // no method, or one the client fails on as it would without the agent
        }
        RequestEntity entity = method instanceof EntityEnclosingMethod ? ((EntityEnclosingMethod) method).getRequestEntity() : null;
        return AgentHooks.begin("commonshttp3", null, scheme, host, port, entity == null || entity.isRepeatable());
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, repeatOn = Advice.OnNonDefaultValue.class)
    static boolean exit(@Advice.Enter Object call, @Advice.Argument(1) HttpMethod method, @Advice.Return int status,
                        @Advice.Thrown Throwable thrown) throws IOException {
        return call != null && AgentHooks.respond("commonshttp3", call, method, status, thrown);
    }
}
