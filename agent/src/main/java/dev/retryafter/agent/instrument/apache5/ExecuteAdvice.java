package dev.retryafter.agent.instrument.apache5;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.io.entity.EntityUtils;

import java.io.IOException;

/**
 * HttpClient 5 classic {@code doExecute}, where every {@code execute} overload meets. Inlined into
 * the client: it may only use types the client's class loader sees, plus the bootstrap
 * {@link AgentHooks}. The loop is {@code repeatOn}: the method body runs again, without the enter
 * advice, while the exit advice returns true. A refused response is consumed and closed before
 * the wait, so its pooled connection goes back (a pool of one would otherwise deadlock).
 */
public final class ExecuteAdvice {

    private ExecuteAdvice() {
    }

    @Advice.OnMethodEnter
    static Object enter(@Advice.Argument(0) HttpHost target, @Advice.Argument(1) ClassicHttpRequest request) throws IOException {
        if (target == null) {
            return null;
        }
        HttpEntity entity = request.getEntity();
        return AgentHooks.begin(target.getSchemeName(), target.getHostName(), target.getPort(), entity == null || entity.isRepeatable());
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
        if (!AgentHooks.shouldRetry(call, response.getCode(), retryAfter == null ? null : retryAfter.getValue())) {
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
