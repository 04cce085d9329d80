package dev.retryafter.agent.instrument.okhttp2;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.instrument.BlockingRetryLoop;
import dev.retryafter.agent.instrument.ClientMethod;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URL;

/**
 * OkHttp 2's {@code OkUrlFactory} connections, by reflection: the host of the connection's URL, and its engine's response
 * read as OkHttp 2's calls read theirs. A connection is governed from the first read of its response. One the application
 * connected first ({@code connect()}, or {@code getOutputStream()} for a body) has its engine already, its request gone
 * before any turn the agent could give it, and is left as OkHttp runs it; so is every later read of a response already
 * answered. A connection with output is never sent twice: its body went to one try's engine. A connection disconnected
 * while it waits to send again is not sent again.
 */
final class OkUrlFactoryConnections extends OkHttp2Calls {

    /** A connection was disconnected: the connection. */
    static final String DISCONNECT = "okhttp2.disconnect";

    private static final ClientMethod RESPONSE = new ClientMethod("getResponse");

    OkUrlFactoryConnections() {
        super("okhttp2.urlconnection");
    }

    /**
     * {@code exchange}: the connection, yet to send. Sent again only a GET or a HEAD with no output: OkHttp follows a
     * redirect of any other method with a GET, but a retry builds the request from the connection's own method.
     */
    @Override
    public Call begin(BlockingRetryLoop loop, Object exchange, String scheme, String host, int port, boolean replayable,
                      boolean governNew) throws IOException {
        if (!governNew || !(exchange instanceof HttpURLConnection)) {
            return null;
        }
        HttpURLConnection connection = (HttpURLConnection) exchange;
        URL url = connection.getURL();
        int urlPort = url.getPort() >= 0 ? url.getPort() : url.getDefaultPort();
        String method = connection.getRequestMethod();
        boolean again = !connection.getDoOutput() && ("GET".equals(method) || "HEAD".equals(method));
        return loop.begin(url.getProtocol(), url.getHost(), urlPort, again, cancels, connection);
    }

    /** A connection disconnected while it waited is not sent again: it fails as one disconnected mid-read does. */
    @Override
    protected IOException cancelledWhileWaiting(String host) {
        return new IOException("Canceled: disconnected while waiting for a turn at " + host);
    }

    /** The advice answers with the connection's engine, which holds this attempt's response. */
    @Override
    Object responseOf(Object engine) throws ReflectiveOperationException {
        return RESPONSE.call(engine);
    }

    @Override
    public String[] hooks() {
        return new String[] {DISCONNECT};
    }
}
