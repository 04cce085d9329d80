package dev.retryafter.it.attached;

import dev.retryafter.it.harness.FreshPorts;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A refusal the agent retries has its body discarded within a small bound, whatever the body does:
 * stall, run on for ever, or be cut. The retry goes out on a fresh connection, and the refused one
 * is closed, not reused (issue 9, item 7). Without the bound, a stalled body held {@code send}
 * until the server gave up (20 s in the issue; here, never).
 */
public class JdkRefusedBodyAttachedTest {

    /** Far above the agent's bound (100 ms a refusal) and its waits (at most 1 s), far below "never". */
    private static final long PATIENCE_SECONDS = 15;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @BeforeAll
    static void theAgentIsAttached() {
        Hooks.requireAgent();
    }

    private static HttpRequest get(RawServer server) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/records/1")).build();
    }

    @Test
    void aRefusalWhoseBodyStallsIsLeftAndTheRetrySucceeds() throws Exception {
        try (RawServer server = new RawServer(n -> n == 0 ? Body.STALLS : Body.OK)) {
            HttpResponse<String> response = client.sendAsync(get(server), BodyHandlers.ofString()).get(PATIENCE_SECONDS, TimeUnit.SECONDS);
            assertEquals(200, response.statusCode());
            server.assertTheRefusedConnectionWasClosedAndNotReused();
        }
    }

    @Test
    void aBlockingSendIsNotHeldByAStalledBody() throws Exception {
        try (RawServer server = new RawServer(n -> n < 2 ? Body.STALLS : Body.OK)) {
            HttpResponse<String> response = sendWithin(get(server));
            assertEquals(200, response.statusCode(), "two stalled refusals, each given up");
            assertEquals(3, server.requests());
            assertEquals(3, server.connections(), "each stalled connection dropped");
        }
    }

    @Test
    void aRefusalWhoseBodyNeverEndsIsLeftAndTheRetrySucceeds() throws Exception {
        try (RawServer server = new RawServer(n -> n == 0 ? Body.NEVER_ENDS : Body.OK)) {
            assertEquals(200, sendWithin(get(server)).statusCode());
            server.assertTheRefusedConnectionWasClosedAndNotReused();
        }
    }

    @Test
    void aRefusalWhoseBodyIsCutIsLeftAndTheRetrySucceeds() throws Exception {
        try (RawServer server = new RawServer(n -> n == 0 ? Body.CUT : Body.OK)) {
            assertEquals(200, sendWithin(get(server)).statusCode(), "not the cut body's IOException: it was a refusal's");
            assertEquals(2, server.requests());
        }
    }

    /** A small refusal that ends keeps its connection: the bound costs the common case nothing. */
    @Test
    void aSmallRefusalThatEndsKeepsItsConnection() throws Exception {
        try (RawServer server = new RawServer(n -> n == 0 ? Body.SMALL : Body.OK)) {
            assertEquals(200, sendWithin(get(server)).statusCode());
            assertEquals(2, server.requests());
            assertEquals(1, server.connections(), "the retry went out on the same connection");
        }
    }

    /** {@code send} on another thread, so that a body that holds it fails this test instead of hanging it. */
    private HttpResponse<String> sendWithin(HttpRequest request) throws Exception {
        java.util.concurrent.CompletableFuture<HttpResponse<String>> sent = new java.util.concurrent.CompletableFuture<>();
        Thread sender = new Thread(() -> {
            try {
                sent.complete(client.send(request, BodyHandlers.ofString()));
            } catch (Throwable t) {
                sent.completeExceptionally(t);
            }
        }, "sender");
        sender.setDaemon(true);
        sender.start();
        try {
            return sent.get(PATIENCE_SECONDS, TimeUnit.SECONDS);
        } finally {
            sender.interrupt();
        }
    }

    /** What a refusal's body does after its headers. */
    public enum Body {
        /** Content-Length 1 MB, 10 bytes sent, then nothing, with the connection held open. */
        STALLS,
        /** Chunked, a chunk every few milliseconds until the client goes away. */
        NEVER_ENDS,
        /** Content-Length 1000, 10 bytes sent, then the connection closed. */
        CUT,
        /** A whole 64-byte 429. */
        SMALL,
        /** A 200 that ends. */
        OK
    }

    /**
     * HTTP/1.1 over a plain socket, since no server library will misbehave on purpose: the n-th
     * request (from 0) is answered as the script says; it counts requests and connections, and
     * notes when the client closes the connection it was refused on.
     */
    public static final class RawServer implements AutoCloseable {
        private final ServerSocket socket;
        private final IntFunction<Body> script;
        private final AtomicInteger requests = new AtomicInteger();
        private final AtomicInteger connections = new AtomicInteger();
        private final List<Socket> open = new CopyOnWriteArrayList<>();
        private final CountDownLatch refusedConnectionClosed = new CountDownLatch(1);
        private final List<Integer> connectionOfRequest = new CopyOnWriteArrayList<>();

        public RawServer(IntFunction<Body> script) throws IOException {
            this.script = script;
            socket = FreshPorts.bind(() -> new ServerSocket(0, 16, InetAddress.getLoopbackAddress()), ServerSocket::getLocalPort, unused -> {
                try {
                    unused.close();
                } catch (IOException ignored) {
                    // a port had before, given up: nothing to keep
                }
            });
            Thread acceptor = new Thread(this::accept, "raw-server");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        public int port() {
            return socket.getLocalPort();
        }

        public int requests() {
            return requests.get();
        }

        int connections() {
            return connections.get();
        }

        /** The client closed the refused connection, and the retry came on another. */
        void assertTheRefusedConnectionWasClosedAndNotReused() throws InterruptedException {
            assertTrue(refusedConnectionClosed.await(PATIENCE_SECONDS, TimeUnit.SECONDS), "the client closed the refused connection");
            assertEquals(2, requests());
            assertEquals(List.of(0, 1), connectionOfRequest, "the retry on a connection of its own");
        }

        private void accept() {
            while (!socket.isClosed()) {
                try {
                    Socket connection = socket.accept();
                    open.add(connection);
                    int number = connections.getAndIncrement();
                    Thread serving = new Thread(() -> serve(connection, number), "raw-server-connection");
                    serving.setDaemon(true);
                    serving.start();
                } catch (IOException e) {
                    return; // closed
                }
            }
        }

        private void serve(Socket connection, int number) {
            try (connection; InputStream in = connection.getInputStream(); OutputStream out = connection.getOutputStream()) {
                while (readRequestHead(in)) {
                    int n = requests.getAndIncrement();
                    connectionOfRequest.add(number);
                    Body body = script.apply(n);
                    if (!answer(body, in, out)) {
                        return;
                    }
                }
            } catch (IOException e) {
                // the client went away
            }
        }

        /** False when the connection is finished with. */
        private boolean answer(Body body, InputStream in, OutputStream out) throws IOException {
            switch (body) {
                case OK:
                    write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
                    return true;
                case SMALL:
                    write(out, "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 0\r\nContent-Length: 64\r\n\r\n" + "x".repeat(64));
                    return true;
                case CUT:
                    write(out, "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 0\r\nContent-Length: 1000\r\n\r\n0123456789");
                    return false;
                case STALLS:
                    write(out, "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 0\r\nContent-Length: 1000000\r\n\r\n0123456789");
                    awaitClose(in);
                    return false;
                case NEVER_ENDS:
                default:
                    write(out, "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 0\r\nTransfer-Encoding: chunked\r\n\r\n");
                    String chunk = Integer.toHexString(1024) + "\r\n" + "y".repeat(1024) + "\r\n";
                    try {
                        while (true) {
                            write(out, chunk);
                            Thread.sleep(2);
                        }
                    } catch (IOException e) {
                        refusedConnectionClosed.countDown(); // written into a closed connection
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return false;
            }
        }

        /** Until the client closes the connection: it never hears more. */
        private void awaitClose(InputStream in) {
            try {
                while (in.read() >= 0) {
                    // a client that sends more on a stalled connection is reusing it; the count shows that
                }
            } catch (IOException e) {
                // reset: closed too
            }
            refusedConnectionClosed.countDown();
        }

        private static boolean readRequestHead(InputStream in) throws IOException {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int matched = 0;
            byte[] end = {'\r', '\n', '\r', '\n'};
            int b;
            while ((b = in.read()) >= 0) {
                head.write(b);
                matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
                if (matched == end.length) {
                    return true; // a GET: no body follows
                }
            }
            return false;
        }

        private static void write(OutputStream out, String text) throws IOException {
            out.write(text.getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }

        @Override
        public void close() throws IOException {
            socket.close();
            for (Socket connection : open) {
                connection.close();
            }
        }
    }
}
