package dev.retryafter.agent.instrument.apache5;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.client5.http.routing.RoutingSupport;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpHost;

import java.io.IOException;

/**
 * HttpClient 5 classic {@code doExecute}, where every {@code execute} overload meets: hands the host over, then each
 * attempt's response to the one blocking loop ({@link Apache5Calls}), and runs the body again, without the enter
 * advice, while it says so ({@code repeatOn}). Inlined into the client: its types and the bootstrap hooks only.
 */
public final class ExecuteAdvice {

    private ExecuteAdvice() {
    }

    @Advice.OnMethodEnter
    static Object enter(@Advice.Origin("#t") String client, @Advice.Argument(0) HttpHost target,
                        @Advice.Argument(1) ClassicHttpRequest request) throws IOException {
        HttpHost host = target;
        try { // executeOpen(null, request, context), as Spring 6 calls it: InternalHttpClient takes the request's authority
            host = host == null && !client.endsWith(".MinimalHttpClient") ? RoutingSupport.determineHost(request) : host;
        } catch (HttpException e) {
            return null; // the client refuses the request itself
        }
        if (host == null) {
            return null; // MinimalHttpClient refuses a null target; so does InternalHttpClient without an authority
        }
        HttpEntity entity = request.getEntity();
        boolean replayable = entity == null || entity.isRepeatable();
        return AgentHooks.begin("apache5", null, host.getSchemeName(), host.getHostName(), host.getPort(), replayable);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, repeatOn = Advice.OnNonDefaultValue.class)
    static boolean exit(@Advice.Enter Object call, @Advice.Return CloseableHttpResponse response, @Advice.Thrown Throwable thrown)
            throws IOException {
        return call != null && AgentHooks.respond("apache5", call, response, response == null ? 0 : response.getCode(), thrown);
    }
}
