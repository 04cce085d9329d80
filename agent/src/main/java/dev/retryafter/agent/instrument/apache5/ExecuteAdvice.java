package dev.retryafter.agent.instrument.apache5;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.HttpHost;

import java.io.IOException;

/**
 * HttpClient 5 classic {@code doExecute}, where every {@code execute} overload meets: hands the host (read with the
 * client's types: reflection would cost on every request) and the body over, then each attempt's response to the one
 * blocking loop ({@link Apache5Calls}), and runs the body again, without the enter advice, while it says so.
 */
public final class ExecuteAdvice {

    private ExecuteAdvice() {
    }

    @Advice.OnMethodEnter
    static Object enter(@Advice.Origin("#t") String client, @Advice.Argument(0) HttpHost target,
                        @Advice.Argument(1) ClassicHttpRequest request) throws IOException {
        if (target == null) { // executeOpen(null, request, context), as Spring 6 calls it: the adapter finds the host
            return client.endsWith(".MinimalHttpClient") ? null : AgentHooks.begin("apache5", request, null, null, -1, false);
        }
        return AgentHooks.begin("apache5", request, target.getSchemeName(), target.getHostName(), target.getPort(), false);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, repeatOn = Advice.OnNonDefaultValue.class)
    static boolean exit(@Advice.Enter Object call, @Advice.Return CloseableHttpResponse response, @Advice.Thrown Throwable thrown)
            throws IOException {
        return call != null && AgentHooks.respond("apache5", call, response, response == null ? 0 : response.getCode(), thrown);
    }
}
