package dev.retryafter.demo.portal;

import dev.retryafter.demo.scraper.LegacyScraper;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A lying portal on loopback: a real HTTP server in front of a {@link PortalModel}, on real time.
 * Serves {@code GET /records/{n}}. A request may name its worker in {@value #WORKER_HEADER} so
 * the portal can tell how soon each worker came back after being refused.
 */
public final class PortalServer implements AutoCloseable {

    public static final String WORKER_HEADER = LegacyScraper.WORKER_HEADER;

    private final PortalModel model;
    private final HttpServer server;
    private final ExecutorService executor;
    private final long serviceMillis;
    private final int refusalBodyBytes;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger peakInFlight = new AtomicInteger();

    /**
     * @param serviceMillis     how long each request takes to serve, so that concurrency is visible
     * @param refusalBodyBytes  the size of a refusal's body; large ones test that refused bodies are drained
     */
    public PortalServer(PortalModel model, long serviceMillis, int refusalBodyBytes) throws IOException {
        this.model = model;
        this.serviceMillis = serviceMillis;
        this.refusalBodyBytes = refusalBodyBytes;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        this.executor = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "portal-" + model.behaviour().label());
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    public PortalServer(PortalModel model) throws IOException {
        this(model, 2, 256);
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** {@code http://127.0.0.1:port} */
    public String baseUrl() {
        return "http://" + server.getAddress().getAddress().getHostAddress() + ":" + port();
    }

    public PortalModel model() {
        return model;
    }

    /** The model's counts, with the most requests this server was ever handling at once. */
    public PortalStats stats() {
        PortalStats stats = model.stats();
        stats.peakInFlight = peakInFlight.get();
        return stats;
    }

    /**
     * A request counts as in flight from its arrival until its answer starts: once a client can see
     * any of the answer it may send its next request, and counting beyond that point would charge
     * the client with an overlap only the server's own thread scheduling made.
     */
    private void handle(HttpExchange exchange) throws IOException {
        int concurrent = inFlight.incrementAndGet();
        peakInFlight.accumulateAndGet(concurrent, Math::max);
        boolean counted = true;
        try (InputStream body = exchange.getRequestBody()) {
            body.readAllBytes();
            PortalModel.Reply reply = model.handle(System.currentTimeMillis(), exchange.getRequestHeaders().getFirst(WORKER_HEADER));
            if (serviceMillis > 0) {
                Thread.sleep(serviceMillis);
            }
            byte[] payload = reply.status == 200 ? record(exchange.getRequestURI().getPath()) : refusal();
            inFlight.decrementAndGet();
            counted = false;
            if (reply.retryAfter != null) {
                exchange.getResponseHeaders().set("Retry-After", reply.retryAfter);
            }
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(reply.status, payload.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(payload);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (counted) {
                inFlight.decrementAndGet();
            }
            exchange.close();
        }
    }

    private static byte[] record(String path) {
        String id = path.substring(path.lastIndexOf('/') + 1);
        return ("{\"record\":\"" + id.replaceAll("[^A-Za-z0-9_-]", "") + "\",\"jurisdiction\":\"demo county\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private byte[] refusal() {
        StringBuilder body = new StringBuilder("{\"error\":\"rate limited\",\"padding\":\"");
        while (body.length() < refusalBodyBytes - 2) {
            body.append('x');
        }
        return body.append("\"}").toString().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        try {
            executor.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
