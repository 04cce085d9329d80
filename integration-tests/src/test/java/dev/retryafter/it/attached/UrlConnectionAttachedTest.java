package dev.retryafter.it.attached;

import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code HttpURLConnection} in this very JVM, which runs with the built agent attached; and what is its own. */
class UrlConnectionAttachedTest extends AbstractClientSuite {

    private static HttpURLConnection open(String url) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) new URL(url).openConnection();
        connection.setConnectTimeout(10_000);
        connection.setReadTimeout(10_000);
        return connection;
    }

    /** As legacy code does it: the status first, then the body or the error body, read to its end. */
    static int statusAndDrain(HttpURLConnection connection) throws IOException {
        int status = connection.getResponseCode();
        try (InputStream body = status < 400 ? connection.getInputStream() : connection.getErrorStream()) {
            if (body != null) {
                body.readAllBytes();
            }
        }
        return status;
    }

    @Override
    int get(String url) throws Exception {
        return statusAndDrain(open(url));
    }

    @Override
    int postOnce(String url, String body) throws Exception {
        HttpURLConnection connection = open(url);
        connection.setDoOutput(true);
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        connection.setFixedLengthStreamingMode(bytes.length);
        try (OutputStream out = connection.getOutputStream()) {
            out.write(bytes);
        }
        return statusAndDrain(connection);
    }

    @Override
    int postReplayable(String url, String body) throws Exception {
        HttpURLConnection connection = open(url);
        connection.setDoOutput(true); // no streaming mode: the JDK buffers the body, and re-sends it on a redirect
        try (OutputStream out = connection.getOutputStream()) {
            out.write(body.getBytes(StandardCharsets.UTF_8));
        }
        return statusAndDrain(connection);
    }

    @Test
    void aChunkedStreamingBodyIsNeverSentTwice() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("0"))) {
            HttpURLConnection connection = open(server.url("/upload"));
            connection.setDoOutput(true);
            connection.setChunkedStreamingMode(16);
            try (OutputStream out = connection.getOutputStream()) {
                out.write("once".getBytes(StandardCharsets.UTF_8));
            }
            assertEquals(429, connection.getResponseCode());
            assertEquals(List.of("once"), server.bodies);
        }
    }

    /** A refusal handed back is the JDK's own: getResponseCode() 429, getInputStream() throws, getErrorStream() readable. */
    @Test
    void aRefusalHandedBackIsExactlyAsTheJdkGivesIt() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> new Reply(429, "0", 48))) {
            HttpURLConnection connection = open(server.url("/upload"));
            connection.setDoOutput(true);
            connection.setFixedLengthStreamingMode(4);
            try (OutputStream out = connection.getOutputStream()) {
                out.write("once".getBytes(StandardCharsets.UTF_8));
            }
            assertThrows(IOException.class, connection::getInputStream);
            assertEquals(429, connection.getResponseCode());
            assertEquals("0", connection.getHeaderField("Retry-After"));
            InputStream error = connection.getErrorStream();
            assertNotNull(error, "the error body is there to read");
            assertEquals(48, error.readAllBytes().length);
        }
    }

    /** Whichever method the application calls first, the refusal never reaches it. */
    @Test
    void getHeaderFieldFirstSeesTheFinalResponse() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n < 2 ? Reply.refused("0") : Reply.ok())) {
            HttpURLConnection connection = open(server.url("/records/1"));
            assertEquals(null, connection.getHeaderField("Retry-After"), "the 200 has none");
            assertEquals(200, connection.getResponseCode());
            assertEquals(3, server.requests());
        }
    }

    @Test
    void openStreamIsGovernedToo() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n < 1 ? Reply.refused("0") : Reply.ok())) {
            try (InputStream in = new URL(server.url("/records/1")).openStream()) {
                assertEquals(16, in.readAllBytes().length);
            }
            assertEquals(2, server.requests());
        }
    }

    /** The refused body is closed, not left: the JDK takes the connection back and the retry reuses it. */
    @Test
    void keepAliveSurvivesARefusal() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n % 2 == 0 ? Reply.refused("0") : Reply.ok())) {
            for (int i = 0; i < 3; i++) {
                assertEquals(200, get(server.url("/records/" + i)));
            }
            assertEquals(6, server.requests());
            assertEquals(1, new HashSet<>(server.clientPorts).size(), () -> "one connection for all: " + server.clientPorts);
        }
    }

    /** The JDK's own redirect loop still runs; the agent's retry goes to where it led. */
    @Test
    void redirectsAreStillFollowed() throws Exception {
        try (ScriptedServer target = new ScriptedServer(n -> n < 1 ? Reply.refused("0") : Reply.ok());
             ScriptedServer redirecting = new ScriptedServer(n -> Reply.redirect(target.url("/records/1")))) {
            assertEquals(200, get(redirecting.url("/old/1")));
            assertEquals(1, redirecting.requests());
            assertEquals(2, target.requests());
        }
    }

    /** disconnect() before the response is read ends the exchange: its permit goes back at once. */
    @Test
    void disconnectEndsTheExchange() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> new Reply(200, null, 1 << 16))) {
            long start = System.nanoTime();
            for (int i = 0; i < 12; i++) {
                HttpURLConnection connection = open(server.url("/records/" + i));
                assertEquals(200, connection.getResponseCode());
                connection.disconnect(); // the body never read
            }
            assertTrue(System.nanoTime() - start < 20_000_000_000L, "no request waited for a permit an earlier one kept");
        }
    }
}
