package dev.retryafter.it.harness;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A portal on loopback whose every host lies: it refuses about half of the first requests and a
 * third of the re-sends, always with {@code Retry-After: 0}, and times each re-send from the refusal
 * of the same request (its path). A re-send sooner than {@code min-sleep} after its refusal is one
 * too soon. The gap is timed from just before the refusal leaves to the re-send's arrival, which can
 * only make it longer than the agent's; but the agent's clock ticks in whole milliseconds, so a wait
 * of 200 ms may be 199.x ms of real time: {@value #CLOCK_TOLERANCE_MILLIS} ms are allowed for it.
 */
public final class LyingPortal implements AutoCloseable {
    public static final long CLOCK_TOLERANCE_MILLIS = 2;

    private final long minSleepMillis;
    private final HttpServer http;
    private final ExecutorService threads = Executors.newFixedThreadPool(32);
    private final Map<String, Long> refusedAtNanos = new HashMap<>();
    private int requests;
    private int refusals;
    private int resent;
    private int tooSoon;
    private long shortestGapNanos = Long.MAX_VALUE;

    public LyingPortal(long minSleepMillis) throws IOException {
        this.minSleepMillis = minSleepMillis;
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        http.setExecutor(threads);
        http.createContext("/", this::handle);
        http.start();
    }

    public int port() {
        return http.getAddress().getPort();
    }

    public synchronized int resent() {
        return resent;
    }

    /** Re-sends that came sooner than min-sleep after their refusal. */
    public synchronized int resentTooSoon() {
        return tooSoon;
    }

    public synchronized int refusals() {
        return refusals;
    }

    public synchronized double shortestGapMillis() {
        return shortestGapNanos == Long.MAX_VALUE ? Double.NaN : shortestGapNanos / 1e6;
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        boolean refuse;
        synchronized (this) {
            long now = System.nanoTime();
            requests++;
            Long refusedAt = refusedAtNanos.remove(path);
            if (refusedAt != null) {
                long gap = now - refusedAt;
                resent++;
                shortestGapNanos = Math.min(shortestGapNanos, gap);
                if (gap < TimeUnit.MILLISECONDS.toNanos(minSleepMillis - CLOCK_TOLERANCE_MILLIS)) {
                    tooSoon++;
                }
            }
            refuse = ThreadLocalRandom.current().nextDouble() < (refusedAt == null ? 0.5 : 0.33);
            if (refuse) {
                refusals++;
                refusedAtNanos.put(path, System.nanoTime()); // before the answer leaves: the gap can only look longer
            }
        }
        if (refuse) {
            exchange.getResponseHeaders().set("Retry-After", "0");
        }
        exchange.sendResponseHeaders(refuse ? 429 : 200, -1);
        exchange.close();
    }

    @Override
    public synchronized String toString() {
        return "requests=" + requests + " refusals=" + refusals + " resent=" + resent + " tooSoon=" + tooSoon
                + " shortestGapAfterRefusal=" + (shortestGapNanos == Long.MAX_VALUE ? "none"
                : String.format(java.util.Locale.ROOT, "%.1fms", shortestGapNanos / 1e6));
    }

    @Override
    public void close() {
        http.stop(0);
        threads.shutdownNow();
    }
}
