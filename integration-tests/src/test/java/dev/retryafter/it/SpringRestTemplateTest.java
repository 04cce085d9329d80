package dev.retryafter.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.retryafter.demo.scraper.ScraperResult;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.MinSleepFloor;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static dev.retryafter.it.LyingHeadersTest.MIN_SLEEP;
import static dev.retryafter.it.LyingHeadersTest.POLICY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Spring's {@code RestTemplate} on both request factories that use Apache, against a portal whose
 * {@code Retry-After} lies, and the null target they may pass, without Spring. Spring 6's factory
 * calls {@code executeOpen(null, request, context)}: a null target, which the agent once left
 * ungoverned, so Apache 5's own strategy slept a whole {@code Retry-After: 3600}.
 *
 * <p>The portal refuses every other request, whatever the machine's speed, so every run meets
 * refusals; a single-threaded client, so the gap after each refusal is the client's own.
 */
@Execution(ExecutionMode.CONCURRENT)
class SpringRestTemplateTest {

    static final int RECORDS = 12;
    /** Max-sleep is 1.5 s; a gap of a minute can only be a machine far too busy, never the hour asked for. */
    static final long NO_HOUR_LONG_SLEEP_MILLIS = 60_000;

    /** Spring 6.2 (a test dependency) with Apache 5; Spring 5.3 (copied by the build) with Apache 4. */
    enum Spring {
        SPRING6_APACHE5, SPRING5_APACHE4;

        ChildJvm classpath(ChildJvm jvm) throws IOException {
            if (this == SPRING6_APACHE5) {
                jvm.classpath(name -> name.startsWith("spring-") || name.startsWith("micrometer-") || name.startsWith("httpclient5")
                        || name.startsWith("httpcore5") || name.startsWith("slf4j-api"));
            } else {
                Path jars = Paths.get(System.getProperty("spring5.jars", "target/spring5"));
                try (Stream<Path> list = Files.list(jars)) {
                    list.filter(jar -> jar.toString().endsWith(".jar")).forEach(jar -> jvm.classpathEntry(jar.toString()));
                }
                jvm.classpath(name -> name.startsWith("httpclient-4") || name.startsWith("httpcore-4")
                        || name.startsWith("commons-logging") || name.startsWith("commons-codec"));
            }
            return jvm.classpathEntry(TestClasspath.testClasses());
        }
    }

    static Stream<Arguments> springsAndLies() {
        return Stream.of(Spring.values()).flatMap(spring -> Stream.of(Arguments.of(spring, "0"), Arguments.of(spring, "3600")));
    }

    @ParameterizedTest(name = "{0} against Retry-After: {1}")
    @MethodSource("springsAndLies")
    void restTemplateIsGovernedOnBothApacheFactories(Spring spring, String retryAfter) throws Exception {
        try (EveryOtherRefused portal = new EveryOtherRefused(retryAfter)) {
            // Ungoverned, Apache 5's own strategy sleeps 3600 s: the timeout is generous, and still far from that.
            ChildJvm jvm = spring.classpath(new ChildJvm(Jdk.JAVA_17)).withAgent("config=" + policy())
                    .timeout(Duration.ofSeconds(240)).main("dev.retryafter.it.apps.RestTemplateApp", portal.url(), Integer.toString(RECORDS));
            assertGoverned(jvm.run(), portal);
        }
    }

    /** The same null target without Spring: Apache 5's executeOpen(null, ...), Apache 4's default-host parameter. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"apache5", "apache4"})
    void aNullTargetIsWorkedOutAsTheClientDoes(String client) throws Exception {
        try (EveryOtherRefused portal = new EveryOtherRefused("0")) {
            ChildJvm jvm = new ChildJvm(Jdk.JAVA_17).classpath(TestClasspath.SCRAPER).classpathEntry(TestClasspath.testClasses())
                    .withAgent("config=" + policy()).timeout(Duration.ofSeconds(240))
                    .main("dev.retryafter.it.apps.NullTargetApp", client, portal.url(), Integer.toString(RECORDS));
            assertGoverned(jvm.run(), portal);
        }
    }

    private static void assertGoverned(ChildJvm.Result result, EveryOtherRefused portal) {
        ScraperResult run = ScraperResult.parse(result.stdout);
        String seen = portal + "\n" + result;
        assertEquals(0, result.exitCode, () -> result.toString());
        assertEquals(RECORDS, run.fetched, () -> "every record arrives\n" + seen);
        assertEquals(2 * RECORDS, portal.requests(), () -> "each record refused once, then fetched\n" + seen);
        assertTrue(result.stderr.contains("Retry-After=\"" + portal.retryAfter + "\""), () -> "the agent decided on the refusals\n" + seen);
        MinSleepFloor.assertKept(portal.shortestGapAfterRefusalMillis(), MIN_SLEEP, () -> seen);
        assertTrue(portal.longestGapAfterRefusalMillis() < NO_HOUR_LONG_SLEEP_MILLIS, () -> "no hour-long sleep\n" + seen);
    }

    private static Path policy() throws IOException {
        Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
        Files.writeString(policy, POLICY);
        return policy;
    }

    /** Refuses the first request and every other one after it, with a fixed {@code Retry-After}; times the gaps after refusals. */
    private static final class EveryOtherRefused implements AutoCloseable {
        final String retryAfter;
        private final HttpServer http;
        private int requests;
        private long refusedAt = -1;
        /** A refusal decided whose answer is not out yet: a request arriving now came back at once. */
        private boolean refusing;
        private long shortestGap = Long.MAX_VALUE;
        private long longestGap = -1;

        EveryOtherRefused(String retryAfter) throws IOException {
            this.retryAfter = retryAfter;
            http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
            http.setExecutor(Executors.newCachedThreadPool(task -> {
                Thread thread = new Thread(task, "every-other-refused");
                thread.setDaemon(true);
                return thread;
            }));
            http.createContext("/", this::handle);
            http.start();
        }

        String url() {
            return "http://127.0.0.1:" + http.getAddress().getPort();
        }

        synchronized int requests() {
            return requests;
        }

        synchronized long shortestGapAfterRefusalMillis() {
            return shortestGap;
        }

        synchronized long longestGapAfterRefusalMillis() {
            return longestGap;
        }

        private void handle(HttpExchange exchange) throws IOException {
            exchange.getRequestBody().readAllBytes();
            boolean refuse;
            synchronized (this) {
                long now = System.nanoTime();
                if (refusing || refusedAt >= 0) {
                    long gap = refusing ? 0 : TimeUnit.NANOSECONDS.toMillis(now - refusedAt);
                    refusing = false;
                    shortestGap = Math.min(shortestGap, gap);
                    longestGap = Math.max(longestGap, gap);
                    refusedAt = -1;
                }
                refuse = requests++ % 2 == 0;
                refusing = refuse;
            }
            byte[] body = (refuse ? "{\"error\":\"rate limited\"}" : "{\"record\":\"r\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            if (refuse) {
                exchange.getResponseHeaders().set("Retry-After", retryAfter);
            }
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(refuse ? 429 : 200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
            if (refuse) {
                synchronized (this) {
                    if (refusing) { // not already answered by a request that did not wait
                        refusing = false;
                        refusedAt = System.nanoTime(); // from the moment the refusal was out
                    }
                }
            }
        }

        @Override
        public synchronized String toString() {
            return "requests=" + requests + " shortestGapAfterRefusal=" + shortestGap + "ms longestGapAfterRefusal=" + longestGap + "ms";
        }

        @Override
        public void close() {
            http.stop(0);
        }
    }
}
