package dev.retryafter.agent.instrument.apache5;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.client5.http.routing.RoutingSupport;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpHost;

import java.io.IOException;
import java.io.InputStream;

/**
 * HttpClient 5 classic {@code doExecute}, where every {@code execute} overload meets. Inlined into
 * the client: it may only use types the client's class loader sees, plus the bootstrap
 * {@link AgentHooks}. The loop is {@code repeatOn}: the method body runs again, without the enter
 * advice, while the exit advice returns true. A refused response's body is discarded within a small
 * bound and the response closed before the wait, so its pooled connection goes back (a pool of one
 * would otherwise deadlock), or, when the body did not end in time, is closed and not reused.
 */
public final class ExecuteAdvice {

    private ExecuteAdvice() {
    }

    @Advice.OnMethodEnter
    static Object enter(@Advice.Origin("#t") String client, @Advice.Argument(0) HttpHost target,
                        @Advice.Argument(1) ClassicHttpRequest request) throws IOException {
        HttpHost host = target;
        if (host == null && !client.endsWith(".MinimalHttpClient")) {
            // executeOpen(null, request, context), as Spring 6's request factory calls it: InternalHttpClient
            // takes the target from the request's scheme and authority, with this very method.
            try {
                host = RoutingSupport.determineHost(request);
            } catch (HttpException e) {
                return null; // the client refuses the request itself
            }
        }
        if (host == null) {
            return null; // MinimalHttpClient refuses a null target; so does InternalHttpClient without an authority
        }
        HttpEntity entity = request.getEntity();
        return AgentHooks.begin(host.getSchemeName(), host.getHostName(), host.getPort(), entity == null || entity.isRepeatable());
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, repeatOn = Advice.OnNonDefaultValue.class)
    static boolean exit(@Advice.Enter Object call, @Advice.Return CloseableHttpResponse response, @Advice.Thrown Throwable thrown)
            throws IOException {
        if (call == null) {
            return false;
        }
        if (thrown != null || response == null) {
            AgentHooks.failed(call);
            return false;
        }
        int status = response.getCode();
        if (AgentHooks.wantsHeaders(call, status)) {
            try {
                for (Header header : response.getHeaders()) {
                    AgentHooks.header(call, header.getName(), header.getValue());
                }
            } catch (RuntimeException unread) {
                // decided on the status and Retry-After alone
            }
        }
        Header retryAfter = status >= AgentHooks.LOWEST_REFUSAL ? response.getFirstHeader("Retry-After") : null;
        if (!AgentHooks.shouldRetry(call, status, retryAfter == null ? null : retryAfter.getValue())) {
            return false;
        }
        InputStream body = null;
        try {
            HttpEntity entity = response.getEntity();
            body = entity == null ? null : entity.getContent();
        } catch (IOException | RuntimeException unreadable) {
            // closed all the same: the connection is dropped instead of reused, and the retry opens another
        }
        AgentHooks.resend(call, response, body, "abort"); // core5's EofSensorInputStream discards the connection instead of reading the rest
        return true;
    }
}
