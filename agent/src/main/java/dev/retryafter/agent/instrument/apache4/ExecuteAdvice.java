package dev.retryafter.agent.instrument.apache4;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import org.apache.http.HttpEntity;
import org.apache.http.HttpEntityEnclosingRequest;
import org.apache.http.HttpHost;
import org.apache.http.HttpRequest;
import org.apache.http.client.methods.CloseableHttpResponse;

import java.io.IOException;

/**
 * HttpClient 4 {@code doExecute} of {@code InternalHttpClient}, {@code MinimalHttpClient} and the deprecated
 * {@code AbstractHttpClient}: hands the host over, then each attempt's response to the one blocking loop
 * ({@link Apache4Calls}), and runs the body again while it says so ({@code repeatOn}). Inlined into class files of
 * version 50: calls only, no lambdas or string concatenation.
 */
public final class ExecuteAdvice {

    private ExecuteAdvice() {
    }

    @Advice.OnMethodEnter
    static Object enter(@Advice.This Object client, @Advice.Origin("#t") String clientType, @Advice.Argument(0) HttpHost target,
                        @Advice.Argument(1) HttpRequest request) throws IOException {
        Object host = target != null ? target : AgentHooks.module(Apache4Calls.DEFAULT_HOST, new Object[] {client, clientType, request});
        if (!(host instanceof HttpHost)) {
            return null;
        }
        HttpEntity entity = request instanceof HttpEntityEnclosingRequest ? ((HttpEntityEnclosingRequest) request).getEntity() : null;
        HttpHost to = (HttpHost) host;
        return AgentHooks.begin("apache4", null, to.getSchemeName(), to.getHostName(), to.getPort(), entity == null || entity.isRepeatable());
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, repeatOn = Advice.OnNonDefaultValue.class)
    static boolean exit(@Advice.Enter Object call, @Advice.Return CloseableHttpResponse response, @Advice.Thrown Throwable thrown)
            throws IOException {
        return call != null
                && AgentHooks.respond("apache4", call, response, response == null ? 0 : response.getStatusLine().getStatusCode(), thrown);
    }
}
