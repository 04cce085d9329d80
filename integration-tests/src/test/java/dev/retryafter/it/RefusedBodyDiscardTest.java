package dev.retryafter.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.retryafter.it.LyingHeadersTest.POLICY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A refused body that stalls or never ends is discarded within a small bound, and its connection
 * closed rather than reused: the retry goes out on a new one. The client's socket timeout is 120 s;
 * draining such a body took at least that (a stalled one) or for ever (an endless one).
 */
@Execution(ExecutionMode.CONCURRENT)
class RefusedBodyDiscardTest {

    /** Far above the agent's bound (100 ms) and far below the client's socket timeout (120 s, in the app). */
    private static final long NO_DRAIN_MILLIS = 60_000;

    @ParameterizedTest(name = "{0}, a body that {1}")
    @CsvSource({"apache4, stalls", "apache4, never-ends", "apache5, stalls", "apache5, never-ends",
            "commons3, stalls", "commons3, never-ends"})
    void aRefusedBodyThatDoesNotEndIsDiscardedWithinABound(String client, String body) throws Exception {
        try (Server server = new Server(body.equals("stalls"))) {
            Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
            Files.writeString(policy, POLICY);
            ChildJvm.Result result = new ChildJvm(Jdk.JAVA_17).classpath(TestClasspath.SCRAPER).classpathEntry(TestClasspath.testClasses())
                    .withAgent("config=" + policy).timeout(Duration.ofSeconds(200))
                    .main("dev.retryafter.it.apps.RefusedBodyApp", client, server.url()).run();

            String line = result.stdout.lines().filter(l -> l.startsWith("STATUS") || l.startsWith("ERROR")).findFirst().orElse("none");
            assertTrue(line.startsWith("STATUS 200 "), () -> "the retry's answer reaches the application\n" + result);
            long elapsed = Long.parseLong(line.split(" ")[2]);
            assertTrue(elapsed < NO_DRAIN_MILLIS, () -> "no drain until the socket timeout: " + elapsed + " ms\n" + result);
            assertEquals(2, server.ports.size(), () -> "the refusal and its retry: " + server.ports);
            assertNotEquals(server.ports.get(0), server.ports.get(1), "the refused body's connection was not reused");
        }
    }

    /** Its first answer is a 429 ({@code Retry-After: 0}) whose body stalls after 16 of 4096 bytes, or streams without end. */
    private static final class Server implements AutoCloseable {
        private final HttpServer http;
        private final boolean stall;
        private final AtomicBoolean refused = new AtomicBoolean();
        private final CountDownLatch closed = new CountDownLatch(1);
        final List<Integer> ports = new CopyOnWriteArrayList<>();

        Server(boolean stall) throws IOException {
            this.stall = stall;
            http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
            http.setExecutor(Executors.newCachedThreadPool(task -> {
                Thread thread = new Thread(task, "refused-body-server");
                thread.setDaemon(true);
                return thread;
            }));
            http.createContext("/", this::handle);
            http.start();
        }

        String url() {
            return "http://127.0.0.1:" + http.getAddress().getPort() + "/records/1";
        }

        private void handle(HttpExchange exchange) throws IOException {
            exchange.getRequestBody().readAllBytes();
            ports.add(exchange.getRemoteAddress().getPort());
            if (!refused.compareAndSet(false, true)) {
                exchange.sendResponseHeaders(200, 16);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(new byte[16]);
                }
                return;
            }
            exchange.getResponseHeaders().set("Retry-After", "0");
            exchange.sendResponseHeaders(429, stall ? 4096 : 0); // 0: chunked, no end announced
            OutputStream out = exchange.getResponseBody();
            try {
                if (stall) {
                    out.write(new byte[16]);
                    out.flush();
                    closed.await(300, TimeUnit.SECONDS);
                } else {
                    byte[] chunk = new byte[1024];
                    for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(300); System.nanoTime() < end && closed.getCount() > 0; ) {
                        out.write(chunk);
                        out.flush();
                        Thread.sleep(5);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException e) {
                // the client closed the connection: what the agent should do
            } finally {
                exchange.close();
            }
        }

        @Override
        public void close() {
            closed.countDown();
            http.stop(0);
        }
    }
}
