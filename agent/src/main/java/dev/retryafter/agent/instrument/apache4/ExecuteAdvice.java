package dev.retryafter.agent.instrument.apache4;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import org.apache.http.HttpHost;
import org.apache.http.client.methods.CloseableHttpResponse;

import java.io.IOException;

/**
 * HttpClient 4 {@code doExecute} of {@code InternalHttpClient}, {@code MinimalHttpClient} and the deprecated
 * {@code AbstractHttpClient}: hands the host (read with the client's types: reflection would cost on every request) and
 * the request over, then each attempt's response to the one blocking loop ({@link Apache4Calls}), and runs the body
 * again while it says so ({@code repeatOn}). Inlined into class files of version 50: calls only.
 */
public final class ExecuteAdvice {

    private ExecuteAdvice() {
    }

    @Advice.OnMethodEnter
    static Object enter(@Advice.This Object client, @Advice.Argument(0) HttpHost target, @Advice.Argument(1) Object request)
            throws IOException {
        if (target == null) { // the client's default host, which its adapter finds
            return AgentHooks.begin("apache4", new Object[] {client, request}, null, null, -1, false);
        }
        return AgentHooks.begin("apache4", request, target.getSchemeName(), target.getHostName(), target.getPort(), false);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, repeatOn = Advice.OnNonDefaultValue.class)
    static boolean exit(@Advice.Enter Object call, @Advice.Return CloseableHttpResponse response, @Advice.Thrown Throwable thrown)
            throws IOException {
        return call != null
                && AgentHooks.respond("apache4", call, response, response == null ? 0 : response.getStatusLine().getStatusCode(), thrown);
    }
}
