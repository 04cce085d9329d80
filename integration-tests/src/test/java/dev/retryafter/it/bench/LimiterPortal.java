package dev.retryafter.it.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

import dev.retryafter.demo.portal.PortalServer;

/**
 * A loopback portal in real time that lets requests through as one {@link LimiterShape} does, for
 * the child-JVM check of what the limiter benchmark measures in virtual time. Counts what the
 * portal saw: requests, refusals, and the shortest time from a refusal to the same worker's next
 * request (the demo scraper names its worker in a header). Its responses leave at once ({@link NoDelayHttpServer}):
 * a round trip on loopback is the couple of milliseconds the virtual run is given.
 */
final class LimiterPortal implements AutoCloseable {

    private final LimiterShape shape;
    private final NoDelayHttpServer server;
    private final Random headerRandom = new Random(1);
    private Limiter limiter;
    private long requests;
    private long refusals;
    private final Map<String, Long> lastRefusal = new HashMap<>();
    private long shortestGapAfterRefusal = Long.MAX_VALUE;

    LimiterPortal(LimiterShape shape) throws IOException {
        this.shape = shape;
        this.server = new NoDelayHttpServer(new NoDelayHttpServer.Handler() {
            @Override
            public NoDelayHttpServer.Response handle(Map<String, String> requestHeaders) throws InterruptedException {
                return LimiterPortal.this.handle(requestHeaders);
            }

            @Override
            public void written(Map<String, String> requestHeaders, NoDelayHttpServer.Response response) {
                LimiterPortal.this.written(requestHeaders, response);
            }
        });
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.port() + "/records";
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

    private NoDelayHttpServer.Response handle(Map<String, String> requestHeaders) throws InterruptedException {
        long now = System.currentTimeMillis();
        String worker = String.valueOf(requestHeaders.get(PortalServer.WORKER_HEADER));
        String retryAfter = null;
        boolean admitted;
        Map<String, String> hints;
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
        Map<String, String> headers = new LinkedHashMap<>(hints);
        if (retryAfter != null) {
            headers.put("Retry-After", retryAfter);
        }
        headers.put("Content-Type", "application/json");
        byte[] payload = (admitted ? "{\"record\":\"r\"}" : "{\"error\":\"rate limited\"}").getBytes(StandardCharsets.UTF_8);
        return new NoDelayHttpServer.Response(admitted ? 200 : shape.status(), headers, payload);
    }

    /** Once a refusal is written the client can have it: the gap to the worker's next request starts then. */
    private synchronized void written(Map<String, String> requestHeaders, NoDelayHttpServer.Response response) {
        if (response.status() != 200) {
            lastRefusal.put(String.valueOf(requestHeaders.get(PortalServer.WORKER_HEADER)), System.currentTimeMillis());
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
