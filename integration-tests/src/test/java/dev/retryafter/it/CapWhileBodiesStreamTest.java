package dev.retryafter.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.retryafter.it.LyingHeadersTest.POLICY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The per-host cap counts an Apache (Commons HttpClient 3 included) or {@code HttpURLConnection} exchange until its body has been
 * read or closed, or for {@code HttpURLConnection} has all arrived, not only until its headers: bulk
 * exports stream for seconds. Counted at the server, which holds each
 * request in flight until the last chunk of its body, and sends that only once it stopped counting:
 * a client can only finish reading after it, so any overlap the server sees is the client's.
 */
@Execution(ExecutionMode.CONCURRENT)
class CapWhileBodiesStreamTest {

    private static final int THREADS = 4;
    private static final int EACH = 2;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"apache5", "apache4", "commons3", "urlconnection"})
    void aCapOfOneHoldsWhileBodiesStream(String client) throws Exception {
        try (SlowBodies server = new SlowBodies()) {
            ChildJvm.Result result = run(client, server, Integer.toString(THREADS), Integer.toString(EACH));
            assertEquals(THREADS, result.stdout.lines().filter(line -> line.equals("OK " + EACH)).count(), () -> result.toString());
            assertEquals(THREADS * EACH, server.requests.get());
            assertEquals(1, server.peak.get(), () -> "one request at a time, body included, as the server saw it\n" + result);
        }
    }

    /** A response dropped without being closed leaks its pooled connection (Apache's own leak), but not its permit for ever. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"apache5", "apache4", "commons3"})
    void aResponseNeverClosedGivesItsPermitBackOnceCollected(String client) throws Exception {
        try (SlowBodies server = new SlowBodies()) {
            ChildJvm.Result result = run(client, server, "1", "1", "leak");
            assertTrue(result.stdout.contains("LEAKING 200"), () -> result.toString());
            assertTrue(result.stdout.contains("OK 1"), () -> "the next request went out\n" + result);
        }
    }

    private static ChildJvm.Result run(String client, SlowBodies server, String... args) throws Exception {
        Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
        Files.writeString(policy, POLICY + "default.max-concurrency = 1\n");
        String[] all = new String[args.length + 2];
        all[0] = client;
        all[1] = server.url();
        System.arraycopy(args, 0, all, 2, args.length);
        return new ChildJvm(Jdk.JAVA_17).classpath(TestClasspath.SCRAPER).classpathEntry(TestClasspath.testClasses())
                .withAgent("config=" + policy).timeout(Duration.ofSeconds(240))
                .main("dev.retryafter.it.apps.StreamingBodiesApp", all).run();
    }

    /** Each answer: 2 KB in eight chunks, 50 ms apart. */
    private static final class SlowBodies implements AutoCloseable {
        private final HttpServer http;
        final AtomicInteger requests = new AtomicInteger();
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger peak = new AtomicInteger();

        SlowBodies() throws IOException {
            http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
            http.setExecutor(Executors.newCachedThreadPool(task -> {
                Thread thread = new Thread(task, "slow-bodies");
                thread.setDaemon(true);
                return thread;
            }));
            http.createContext("/", this::handle);
            http.start();
        }

        String url() {
            return "http://127.0.0.1:" + http.getAddress().getPort() + "/export";
        }

        private void handle(HttpExchange exchange) throws IOException {
            exchange.getRequestBody().readAllBytes();
            requests.incrementAndGet();
            peak.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            boolean counted = true;
            byte[] chunk = new byte[256];
            try (OutputStream out = exchange.getResponseBody()) {
                exchange.sendResponseHeaders(200, 8 * chunk.length);
                for (int i = 0; i < 7; i++) {
                    out.write(chunk);
                    out.flush();
                    Thread.sleep(50);
                }
                inFlight.decrementAndGet();
                counted = false;
                out.write(chunk);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                if (counted) {
                    inFlight.decrementAndGet();
                }
                exchange.close();
            }
        }

        @Override
        public void close() {
            http.stop(0);
        }
    }
}
