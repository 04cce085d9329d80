package dev.retryafter.agent.instrument.okhttp2;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.instrument.BlockingRetryLoop;
import dev.retryafter.agent.instrument.ClientMethod;
import dev.retryafter.agent.log.AgentLog;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URL;

/**
 * OkHttp 2's {@code OkUrlFactory} connections, by reflection: the host of the connection's URL, and its engine's response
 * read as OkHttp 2's calls read theirs. A connection is governed from the first read of its response. One the application
 * connected first ({@code connect()}, or {@code getOutputStream()} for a body) has its engine already, its request gone
 * before any turn the agent could give it, and is left as OkHttp runs it; so is every later read of a response already
 * answered. A connection with output is never sent twice: its body went to one try's engine.
 */
final class OkUrlFactoryConnections extends OkHttp2Calls {

    private static final ClientMethod RESPONSE = new ClientMethod("getResponse");

    OkUrlFactoryConnections() {
        super("okhttp2.urlconnection");
    }

    /** {@code exchange}: the connection and its engine, null before its first try. */
    @Override
    public Call begin(BlockingRetryLoop loop, Object exchange, String scheme, String host, int port, boolean replayable,
                      boolean governNew) throws IOException {
        if (!governNew || !(exchange instanceof Object[]) || ((Object[]) exchange)[1] != null) {
            return null;
        }
        HttpURLConnection connection = (HttpURLConnection) ((Object[]) exchange)[0];
        URL url = connection.getURL();
        int urlPort = url.getPort() >= 0 ? url.getPort() : url.getDefaultPort();
        return loop.begin(url.getProtocol(), url.getHost(), urlPort, !connection.getDoOutput());
    }

    /** {@code response}: the connection's engine, whose response this attempt's is. */
    @Override
    public boolean respond(BlockingRetryLoop loop, Object call, Object response, Object body, int status, Throwable thrown)
            throws IOException {
        Object answered = null;
        if (response != null) {
            try {
                answered = RESPONSE.call(response);
            } catch (ReflectiveOperationException | RuntimeException e) {
                AgentLog.failure("reading an OkHttp 2 connection's response", e);
            }
        }
        return super.respond(loop, call, answered, body, status, thrown);
    }

    @Override
    public String[] hooks() {
        return new String[0];
    }
}
