package dev.retryafter.it.cost;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A server that never refuses: every request gets 200 and the same small body, from a fixed pool of
 * its own. Runs in a JVM of its own ({@link ServerJvm}) for the whole benchmark: warmed up once, it
 * serves every round of both arms alike. Its main prints {@value #LISTENING} and the URL, and serves
 * until its standard input ends, so it cannot outlive the benchmark that started it.
 */
public final class LoopbackServer implements AutoCloseable {

    static final String LISTENING = "LISTENING";

    /** A small JSON record, as a portal's API would answer: the cost measured is per request, not per byte. */
    static final byte[] BODY = "{\"id\":42,\"parcel\":\"0123456789\",\"owner\":\"A. Person\",\"assessed\":350000}"
            .getBytes(StandardCharsets.US_ASCII);

    /** As many handler threads as the busiest client has connections, so none waits for the pool. */
    private static final int POOL_THREADS = 4;

    private final HttpServer server;
    private final ExecutorService pool;

    LoopbackServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        pool = Executors.newFixedThreadPool(POOL_THREADS, task -> {
            Thread thread = new Thread(task, "cost-loopback-server");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(pool);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, BODY.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(BODY);
            }
        });
        server.start();
    }

    public static void main(String[] args) throws IOException {
        try (LoopbackServer server = new LoopbackServer()) {
            System.out.println(LISTENING + " " + server.url());
            System.out.flush();
            while (System.in.read() >= 0) {
                // Nothing is sent; end of input is the signal to stop.
            }
        }
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/record");
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
