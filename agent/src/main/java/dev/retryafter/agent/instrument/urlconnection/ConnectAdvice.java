package dev.retryafter.agent.instrument.urlconnection;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

import java.io.IOException;

/**
 * {@code sun.net.www.protocol.http.HttpURLConnection.plainConnect()}, where {@code connect}, {@code getOutputStream} and
 * {@code getInputStream} (and so every getter of the response) make the connection, for HTTPS too. Inlined into
 * java.base: java.base and the bootstrap {@link AgentHooks} only. A request in fixed-length or chunked streaming mode
 * cannot be sent twice; a body the JDK buffers can, as it re-sends it on a redirect. The adapter reads the URL.
 */
public final class ConnectAdvice {

    private ConnectAdvice() {
    }

    @Advice.OnMethodEnter
    static void enter(@Advice.This Object connection, @Advice.FieldValue("connected") boolean connected,
                      @Advice.FieldValue("fixedContentLength") int fixedContentLength,
                      @Advice.FieldValue("fixedContentLengthLong") long fixedContentLengthLong,
                      @Advice.FieldValue("chunkLength") int chunkLength) throws IOException {
        if (!connected) { // the call is kept by its connection: begin's answer is not needed
            boolean streaming = fixedContentLength != -1 || fixedContentLengthLong != -1 || chunkLength != -1;
            AgentHooks.begin("urlconnection", connection, null, null, -1, !streaming);
        }
    }
}
