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
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import static dev.retryafter.it.LyingHeadersTest.POLICY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An Error inside the agent (here a StackOverflowError its decision log meets) never reaches the
 * application: the call goes on as the client alone would make it, and the agent says so once.
 * The application's own errors, and the client's, still reach it exactly as without the agent.
 */
@Execution(ExecutionMode.CONCURRENT)
class AgentErrorBoundaryTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"apache5", "apache4"})
    void anErrorInsideTheAgentFallsBackToThePlainCall(String client) throws Exception {
        try (Server server = new Server()) {
            List<String> without = run(client, server, false);
            server.reset();
            List<String> with = run(client, server, true);

            assertTrue(with.get(0).startsWith("STATUS "), () -> "the refused call still answers, no Error\n" + with);
            assertEquals(without.subList(1, without.size()), with.subList(1, with.size()),
                    "everything after it as without the agent: the client's own failure, the application's own AssertionError");
            assertTrue(with.get(2).startsWith("ERROR ") && with.get(2).contains("Http"), () -> with.toString());
            assertTrue(with.get(4).startsWith("ERROR java.lang.AssertionError: the application's own"), () -> with.toString());
        }
    }

    private static List<String> run(String client, Server server, boolean agent) throws Exception {
        ChildJvm jvm = new ChildJvm(Jdk.JAVA_17).classpath(TestClasspath.SCRAPER).classpathEntry(TestClasspath.testClasses());
        if (agent) {
            Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
            Files.writeString(policy, POLICY);
            jvm.withAgent("config=" + policy);
        }
        ChildJvm.Result result = jvm.main("dev.retryafter.it.apps.AgentErrorApp", client, server.url()).run();
        assertEquals(0, result.exitCode, () -> result.toString());
        List<String> lines = result.stdout.lines().filter(line -> line.startsWith("STATUS") || line.startsWith("ERROR"))
                .collect(Collectors.toList());
        assertEquals(5, lines.size(), () -> result.toString());
        if (agent) {
            long failures = result.stderr.lines().filter(line -> line.contains("internal failure in")).count();
            assertEquals(1, failures, () -> "one log line for the agent's own failure\n" + result);
            assertTrue(result.stderr.contains("StackOverflowError: provoked"), () -> result.toString());
        }
        return lines;
    }

    /** {@code /refused-first}: a 429 with {@code Retry-After: 0}, then 200s; {@code /hang-up}: no answer; else 200. */
    private static final class Server implements AutoCloseable {
        private final HttpServer http;
        private final AtomicBoolean refused = new AtomicBoolean();

        Server() throws IOException {
            http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
            http.setExecutor(Executors.newCachedThreadPool(task -> {
                Thread thread = new Thread(task, "boundary-server");
                thread.setDaemon(true);
                return thread;
            }));
            http.createContext("/", this::handle);
            http.start();
        }

        void reset() {
            refused.set(false);
        }

        String url() {
            return "http://127.0.0.1:" + http.getAddress().getPort();
        }

        private void handle(HttpExchange exchange) throws IOException {
            exchange.getRequestBody().readAllBytes();
            String path = exchange.getRequestURI().getPath();
            if (path.equals("/hang-up")) {
                exchange.close();
                return;
            }
            int status = 200;
            if (path.equals("/refused-first") && refused.compareAndSet(false, true)) {
                status = 429;
                exchange.getResponseHeaders().set("Retry-After", "0");
            }
            byte[] body = new byte[16];
            Arrays.fill(body, (byte) 'x');
            exchange.sendResponseHeaders(status, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }

        @Override
        public void close() {
            http.stop(0);
        }
    }
}
