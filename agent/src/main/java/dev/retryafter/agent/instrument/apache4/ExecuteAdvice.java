package dev.retryafter.agent.instrument.apache4;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import org.apache.http.Header;
import org.apache.http.HttpEntity;
import org.apache.http.HttpEntityEnclosingRequest;
import org.apache.http.HttpHost;
import org.apache.http.HttpRequest;
import org.apache.http.client.methods.CloseableHttpResponse;
import org.apache.http.util.EntityUtils;

import java.io.IOException;

/**
 * HttpClient 4 {@code doExecute} of {@code InternalHttpClient}, {@code MinimalHttpClient} and the
 * deprecated {@code AbstractHttpClient} ({@code DefaultHttpClient}). Inlined into class files of
 * version 50, which have no invokedynamic: no string concatenation and no lambdas here, only calls.
 * Types: what the client's class loader sees, plus the bootstrap {@link AgentHooks}.
 */
public final class ExecuteAdvice {

    private ExecuteAdvice() {
    }

    @Advice.OnMethodEnter
    static Object enter(@Advice.Argument(0) HttpHost target, @Advice.Argument(1) HttpRequest request) throws IOException {
        if (target == null) {
            return null;
        }
        boolean replayable = true;
        if (request instanceof HttpEntityEnclosingRequest) {
            HttpEntity entity = ((HttpEntityEnclosingRequest) request).getEntity();
            replayable = entity == null || entity.isRepeatable();
        }
        return AgentHooks.begin(target.getSchemeName(), target.getHostName(), target.getPort(), replayable);
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
        Header retryAfter = response.getFirstHeader("Retry-After");
        if (!AgentHooks.shouldRetry(call, response.getStatusLine().getStatusCode(), retryAfter == null ? null : retryAfter.getValue())) {
            return false;
        }
        try {
            EntityUtils.consume(response.getEntity());
            response.close();
        } catch (IOException | RuntimeException discarded) {
            // The connection is dropped instead of reused; the retry opens another.
        }
        AgentHooks.awaitRetry(call);
        return true;
    }
}
