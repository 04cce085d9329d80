package dev.retryafter.agent.instrument.urlconnection;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;

/**
 * {@code followRedirect()}, asked about each response inside {@code getInputStream} before the application has any: the
 * response goes to the agent with the JDK's client and body ({@link UrlConnectionExchanges}). A refusal to send again is
 * made a redirect to the same URL: the advice resets the JDK's fields, which only it can reach, and answers "yes", so the
 * JDK's loop writes the request again, buffered body included. A redirect, the JDK's or this one, first waits for its turn.
 */
public final class ResponseAdvice {

    private ResponseAdvice() {
    }

    @Advice.OnMethodExit
    static void exit(@Advice.This HttpURLConnection connection, @Advice.Return(readOnly = false) boolean followed,
                     @Advice.FieldValue(value = "responseCode", readOnly = false) int responseCode,
                     @Advice.FieldValue(value = "inputStream", readOnly = false) InputStream body,
                     @Advice.FieldValue(value = "http", readOnly = false, typing = Assigner.Typing.DYNAMIC) Object http,
                     @Advice.FieldValue(value = "connected", readOnly = false) boolean connected,
                     @Advice.FieldValue(value = "responses", typing = Assigner.Typing.DYNAMIC) Object headers) throws IOException {
        if (!followed && AgentHooks.respond("urlconnection", connection, http, body, connection.getResponseCode())) {
            ((sun.net.www.MessageHeader) headers).reset(); // else a resend that fails leaves the refusal's status to be read
            body = null;
            http = null;
            connected = false;
            responseCode = -1;
            followed = true;
        }
        if (followed) { // a refusal's body is closed, then it waits; a redirect to another host waits for its turn there
            AgentHooks.await("urlconnection", connection);
        }
    }
}
