package dev.retryafter.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.retryafter.agent.store.redis.RedisServer;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.FlappingProxy;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The floor after a refusal with the fleet store on a Redis whose link flaps: 16 threads of one JVM
 * scrape 300 hosts that lie ({@code Retry-After: 0}) through a proxy that cuts or stalls the link to
 * a real redis-server every second or so. No request is sent again sooner than {@code min-sleep}
 * after its refusal, whatever state the link was in when it was refused or re-sent.
 */
class FlappingRedisFloorTest {

    private static final long MIN_SLEEP_MILLIS = 200;
    /**
     * The gap is timed at the portal, from just before it sends the refusal to the re-send's arrival,
     * which can only make it longer than the agent's; but the agent's clock ticks in whole
     * milliseconds, so a wait of 200 ms may be 199.x ms of real time.
     */
    private static final long CLOCK_TOLERANCE_MILLIS = 2;
    private static final int HOSTS = 300;
    private static final int THREADS = 16;
    private static final int SECONDS = 25;

    @Test
    void noRequestGoesAgainSoonerThanMinSleepAfterItsRefusalWhileRedisFlaps() throws Exception {
        try (RedisServer redis = RedisServer.start(); FlappingProxy proxy = new FlappingProxy(redis.port(), 900, 200);
             LyingPortal portal = new LyingPortal()) {
            Path dir = ChildJvm.workDir();
            Path hostsFile = Files.createTempFile(dir, "hosts-", ".txt");
            StringBuilder names = new StringBuilder();
            for (int i = 0; i < HOSTS; i++) {
                names.append("127.0.0.1 h").append(i).append(".lying.test\n");
            }
            Files.writeString(hostsFile, names);
            Path policy = Files.createTempFile(dir, "policies-", ".properties");
            Files.writeString(policy, "default.min-sleep = " + MIN_SLEEP_MILLIS + "ms\n"
                    + "default.max-sleep = 1s\n"
                    + "default.max-attempts = 4\n"
                    + "store = redis://127.0.0.1:" + proxy.port() + "\n"
                    + "fleet = flapping\n"); // the default store-timeout, 50 ms: a stall is a timeout
            ChildJvm.Result result = new ChildJvm(Jdk.JAVA_17).classpathEntry(TestClasspath.testClasses())
                    .withAgent("config=" + policy).jvmArg("-Djdk.net.hosts.file=" + hostsFile)
                    .timeout(Duration.ofSeconds(SECONDS + 90))
                    .main("dev.retryafter.it.apps.LyingHostsApp", Integer.toString(portal.port()), Integer.toString(HOSTS),
                            Integer.toString(THREADS), Integer.toString(SECONDS)).run();
            String seen = portal + ", proxy cuts=" + proxy.cuts() + " stalls=" + proxy.stalls() + "\n" + result;
            System.out.println("flapping Redis: " + portal + ", proxy cuts=" + proxy.cuts() + " stalls=" + proxy.stalls()
                    + ", agent lines about the store: " + result.stderr.lines().filter(l -> l.contains("fleet store")).count());
            assertEquals(0, result.exitCode, () -> seen);
            assertTrue(result.stdout.contains("DONE ") && result.stdout.contains(" failed=0"), () -> seen);
            assertTrue(result.stderr.contains("fleet store") && result.stderr.contains("unavailable"),
                    () -> "the agent saw the link go\n" + seen);
            assertFalse(result.stderr.contains("internal failure") || result.stderr.contains("\tat "), () -> seen);
            assertTrue(portal.resent() >= 200, () -> "enough re-sends to judge\n" + seen);
            assertEquals(0, portal.tooSoon(), () -> "re-sent sooner than min-sleep after the refusal\n" + seen);
        }
    }

    /**
     * Refuses about half of the first requests and a third of the re-sends, always with {@code Retry-After:
     * 0}; times each re-send from the refusal of the same request (its path).
     */
    private static final class LyingPortal implements AutoCloseable {
        private final HttpServer http;
        private final ExecutorService threads = Executors.newFixedThreadPool(THREADS * 2);
        private final Map<String, Long> refusedAtNanos = new HashMap<>();
        private int requests;
        private int refusals;
        private int resent;
        private int tooSoon;
        private long shortestGapNanos = Long.MAX_VALUE;

        LyingPortal() throws IOException {
            http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
            http.setExecutor(threads);
            http.createContext("/", this::handle);
            http.start();
        }

        int port() {
            return http.getAddress().getPort();
        }

        synchronized int resent() {
            return resent;
        }

        synchronized int tooSoon() {
            return tooSoon;
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
                    if (gap < TimeUnit.MILLISECONDS.toNanos(MIN_SLEEP_MILLIS - CLOCK_TOLERANCE_MILLIS)) {
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
}
