package dev.retryafter.agent.instrument.apache4;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import org.apache.http.Header;
import org.apache.http.HttpEntity;
import org.apache.http.HttpEntityEnclosingRequest;
import org.apache.http.HttpHost;
import org.apache.http.HttpRequest;
import org.apache.http.client.methods.CloseableHttpResponse;
import org.apache.http.impl.client.AbstractHttpClient;

import java.io.IOException;
import java.io.InputStream;

/**
 * HttpClient 4 {@code doExecute} of {@code InternalHttpClient}, {@code MinimalHttpClient} and the
 * deprecated {@code AbstractHttpClient} ({@code DefaultHttpClient}). Inlined into class files of
 * version 50, which have no invokedynamic: no string concatenation and no lambdas here, only calls.
 * Types: what the client's class loader sees, plus the bootstrap {@link AgentHooks}.
 */
public final class ExecuteAdvice {

    private static final String DEFAULT_HOST = "http.default-host"; // ClientPNames.DEFAULT_HOST, inlined as a constant

    private ExecuteAdvice() {
    }

    @Advice.OnMethodEnter
    @SuppressWarnings("deprecation") // request and client parameters: where Apache 4 itself looks for a default host
    static Object enter(@Advice.This Object client, @Advice.Origin("#t") String clientType, @Advice.Argument(0) HttpHost target,
                        @Advice.Argument(1) HttpRequest request) throws IOException {
        HttpHost host = target;
        // execute(HttpUriRequest) already took the target from an absolute URI (determineTarget). A null
        // one left is what InternalHttpClient and AbstractHttpClient then look up as the default host
        // (failing without one); MinimalHttpClient refuses it.
        if (host == null && !clientType.endsWith(".MinimalHttpClient")) {
            Object fallback = request.getParams().getParameter(DEFAULT_HOST);
            if (fallback == null && client instanceof AbstractHttpClient) {
                fallback = ((AbstractHttpClient) client).getParams().getParameter(DEFAULT_HOST);
            }
            if (fallback instanceof HttpHost) {
                host = (HttpHost) fallback;
            }
        }
        if (host == null) {
            return null;
        }
        boolean replayable = true;
        if (request instanceof HttpEntityEnclosingRequest) {
            HttpEntity entity = ((HttpEntityEnclosingRequest) request).getEntity();
            replayable = entity == null || entity.isRepeatable();
        }
        return AgentHooks.begin(host.getSchemeName(), host.getHostName(), host.getPort(), replayable);
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
        int status = response.getStatusLine().getStatusCode();
        if (AgentHooks.wantsHeaders(call, status)) {
            try {
                for (Header header : response.getAllHeaders()) {
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
        AgentHooks.resend(call, response, body, "abortConnection"); // EofSensorInputStream shuts the connection instead of reading the rest
        return true;
    }
}
