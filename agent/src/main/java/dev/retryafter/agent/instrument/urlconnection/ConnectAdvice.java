package dev.retryafter.agent.instrument.urlconnection;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URL;

/**
 * {@code sun.net.www.protocol.http.HttpURLConnection.plainConnect()}, where {@code connect},
 * {@code getOutputStream} and {@code getInputStream} (and so every getter of the response) make
 * the connection, for HTTPS too. Inlined into java.base: it may use java.base and the bootstrap
 * {@link AgentHooks} only. A request in fixed-length or chunked streaming mode cannot be sent twice;
 * a body the JDK buffers can, as it re-sends it on a redirect.
 */
public final class ConnectAdvice {

    private ConnectAdvice() {
    }

    @Advice.OnMethodEnter
    static void enter(@Advice.This HttpURLConnection connection,
                      @Advice.FieldValue("connected") boolean connected,
                      @Advice.FieldValue("fixedContentLength") int fixedContentLength,
                      @Advice.FieldValue("fixedContentLengthLong") long fixedContentLengthLong,
                      @Advice.FieldValue("chunkLength") int chunkLength) throws IOException {
        if (!connected) { // the call is kept by its connection: begin's answer is not needed
            boolean streaming = fixedContentLength != -1 || fixedContentLengthLong != -1 || chunkLength != -1;
            URL url = connection.getURL();
            AgentHooks.begin("urlconnection", connection, url.getProtocol(), url.getHost(), url.getPort(), !streaming);
        }
    }
}
