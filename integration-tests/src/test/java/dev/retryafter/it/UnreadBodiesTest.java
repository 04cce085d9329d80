package dev.retryafter.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static dev.retryafter.it.LyingHeadersTest.POLICY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An {@code HttpURLConnection} response whose body has arrived, or that has none, is no longer in
 * flight at the portal, whatever the application does with it: code that only asks for the status
 * and never reads, closes or disconnects must not hold the host's cap for the agent's 30 s bound on
 * unfinished exchanges. 40 requests at a cap of 4 took 300 s that way (19 went in 120 s); they go
 * through in a second or two now, so the child's timeout, far below 300 s and far above a loaded
 * machine's few seconds, tells the two apart. On Java 8 (where it is jsoup's only transport), 17
 * and 25. The server sends each body a little after its headers, as servers that flush headers
 * first do, so most bodies arrive after the client has read the status; every fifth answer is a 204
 * with no body. It stops counting a request just before writing its body: a client can only see
 * the body complete after that, so any overlap above the cap the server sees is the client's.
 */
@Execution(ExecutionMode.CONCURRENT)
class UnreadBodiesTest {

    private static final int CAP = 4;
    private static final int THREADS = 8;
    private static final int REQUESTS = 40;

    static Stream<Arguments> clientsOnJdks() {
        return Jdk.spread().stream().flatMap(jdk -> Stream.of("jsoup", "urlconnection").map(client -> Arguments.of(jdk, client)));
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("clientsOnJdks")
    void bodiesNeverReadDoNotHoldTheCap(Jdk jdk, String client) throws Exception {
        try (Portal portal = new Portal()) {
            Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
            Files.writeString(policy, POLICY + "default.max-concurrency = " + CAP + "\n");
            ChildJvm.Result result = new ChildJvm(jdk).classpath(TestClasspath.SCRAPER)
                    .classpath(name -> name.startsWith("jsoup-")).classpathEntry(TestClasspath.testClasses())
                    .withAgent("config=" + policy).timeout(Duration.ofSeconds(120))
                    .main("dev.retryafter.it.apps.java8.UnreadBodiesApp", client, portal.url(), Integer.toString(THREADS),
                            Integer.toString(REQUESTS)).run();
            assertTrue(result.stdout.contains("DONE " + REQUESTS), () -> "all " + REQUESTS + " went, none waited out the 30 s bound\n" + result);
            assertEquals(REQUESTS, portal.requests.get(), () -> result.toString());
            assertTrue(portal.peak.get() <= CAP, () -> "at most " + CAP + " in flight as the portal saw it, saw " + portal.peak + "\n" + result);
        }
    }

    /** Answers 200 with 4 KB, its body 20 ms after its headers; every fifth request, 204. */
    private static final class Portal implements AutoCloseable {
        private final HttpServer http;
        final AtomicInteger requests = new AtomicInteger();
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger peak = new AtomicInteger();

        Portal() throws IOException {
            http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
            http.setExecutor(Executors.newCachedThreadPool(task -> {
                Thread thread = new Thread(task, "unread-bodies-portal");
                thread.setDaemon(true);
                return thread;
            }));
            http.createContext("/", this::handle);
            http.start();
        }

        String url() {
            return "http://127.0.0.1:" + http.getAddress().getPort() + "/page";
        }

        private void handle(HttpExchange exchange) throws IOException {
            exchange.getRequestBody().readAllBytes();
            boolean empty = requests.incrementAndGet() % 5 == 0;
            peak.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            boolean counted = true;
            try (OutputStream out = exchange.getResponseBody()) {
                Thread.sleep(10);
                if (empty) {
                    inFlight.decrementAndGet();
                    counted = false;
                    exchange.sendResponseHeaders(204, -1);
                    return;
                }
                byte[] body = new byte[4096];
                exchange.sendResponseHeaders(200, body.length);
                out.flush();
                Thread.sleep(20);
                inFlight.decrementAndGet();
                counted = false;
                out.write(body);
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
