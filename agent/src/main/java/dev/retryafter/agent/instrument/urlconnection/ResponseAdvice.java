package dev.retryafter.agent.instrument.urlconnection;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;

/**
 * {@code followRedirect()}, which the JDK's loop inside {@code getInputStream} asks about every
 * response past authentication, before it hands anything to the application. A redirect it followed
 * to another host is that host's request: it waits for its turn there before the request is written. When it says "no
 * redirect" and the agent says "a refusal to send again", the advice does what a redirect to the
 * same URL needs and answers "yes": the loop then connects and writes the request again, buffered
 * body included. The refused body is closed first: the JDK skips what has arrived and returns the
 * connection to its keep-alive cache, hands the rest to its own cleaner thread (up to
 * {@code http.KeepAlive.remainingData}, 512 KB), or closes the connection; it never blocks here.
 * The response goes to the agent as the JDK holds it, its client and the body's stream: fields of java.base only
 * this advice can reach, and it alone resets them.
 */
public final class ResponseAdvice {

    private ResponseAdvice() {
    }

    @Advice.OnMethodExit
    static void exit(@Advice.This HttpURLConnection connection,
                     @Advice.Return(readOnly = false) boolean followed,
                     @Advice.FieldValue(value = "responseCode", readOnly = false) int responseCode,
                     @Advice.FieldValue(value = "inputStream", readOnly = false) InputStream body,
                     @Advice.FieldValue(value = "http", readOnly = false, typing = Assigner.Typing.DYNAMIC) Object http,
                     @Advice.FieldValue(value = "connected", readOnly = false) boolean connected) throws IOException {
        if (followed) { // to another host, the redirect waits for its turn there
            AgentHooks.await("urlconnection", connection);
            return;
        }
        if (!AgentHooks.respond("urlconnection", connection, new Object[] {http, body}, connection.getResponseCode(), null)) {
            return;
        }
        InputStream refused = body;
        body = null;
        http = null;
        connected = false;
        responseCode = -1;
        if (refused != null) {
            try {
                refused.close();
            } catch (IOException discarded) {
                // the JDK closed the connection instead of keeping it
            }
        }
        AgentHooks.await("urlconnection", connection);
        followed = true;
    }
}
