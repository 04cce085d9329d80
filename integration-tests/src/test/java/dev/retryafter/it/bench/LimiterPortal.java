package dev.retryafter.it.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import dev.retryafter.demo.portal.PortalServer;

/**
 * A loopback portal in real time that lets requests through as one {@link LimiterShape} does, for
 * the child-JVM check of what the limiter benchmark measures in virtual time. Counts what the
 * portal saw: requests, refusals, and the shortest time from a refusal to the same worker's next
 * request (the demo scraper names its worker in a header).
 */
final class LimiterPortal implements AutoCloseable {

    private final LimiterShape shape;
    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final Random headerRandom = new Random(1);
    private Limiter limiter;
    private long requests;
    private long refusals;
    private final Map<String, Long> lastRefusal = new HashMap<>();
    private long shortestGapAfterRefusal = Long.MAX_VALUE;

    LimiterPortal(LimiterShape shape) throws IOException {
        this.shape = shape;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.createContext("/", this::handle);
        server.setExecutor(threads);
        server.start();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/records";
    }

    synchronized long requests() {
        return requests;
    }

    synchronized long refusals() {
        return refusals;
    }

    synchronized long shortestGapAfterRefusalMillis() {
        return shortestGapAfterRefusal;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (InputStream body = exchange.getRequestBody()) {
            body.readAllBytes();
            long now = System.currentTimeMillis();
            String worker = String.valueOf(exchange.getRequestHeaders().getFirst(PortalServer.WORKER_HEADER));
            String retryAfter = null;
            boolean admitted;
            java.util.Map<String, String> hints;
            synchronized (this) {
                if (limiter == null) {
                    limiter = shape.limiter().apply(now);
                }
                requests++;
                Long refusedAt = lastRefusal.remove(worker);
                if (refusedAt != null) {
                    shortestGapAfterRefusal = Math.min(shortestGapAfterRefusal, now - refusedAt);
                }
                admitted = limiter.admit(now);
                if (!admitted) {
                    refusals++;
                    retryAfter = shape.header().value(now, limiter.millisUntilRoom(now), headerRandom);
                }
                hints = shape.hints().at(now, shape.burst(), shape.firstPeriod(), limiter.remaining(now), limiter.millisUntilRoom(now));
            }
            if (admitted && shape.serviceMillis() > 0) {
                Thread.sleep(shape.serviceMillis());
            }
            if (admitted) {
                synchronized (this) {
                    limiter.done(System.currentTimeMillis());
                }
            }
            int status = admitted ? 200 : shape.status();
            byte[] payload = (admitted ? "{\"record\":\"r\"}" : "{\"error\":\"rate limited\"}").getBytes(StandardCharsets.UTF_8);
            if (retryAfter != null) {
                exchange.getResponseHeaders().set("Retry-After", retryAfter);
            }
            hints.forEach(exchange.getResponseHeaders()::set);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, payload.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(payload);
            }
            if (!admitted) {
                synchronized (this) {
                    lastRefusal.put(worker, System.currentTimeMillis()); // once written: the client cannot have it sooner
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            exchange.close();
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
