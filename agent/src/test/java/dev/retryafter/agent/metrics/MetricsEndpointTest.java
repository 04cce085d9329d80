package dev.retryafter.agent.metrics;

import com.sun.net.httpserver.HttpServer;
import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.GoverningSwitch;
import dev.retryafter.agent.config.AgentArguments;
import dev.retryafter.agent.config.MetricsAddress;
import dev.retryafter.agent.config.Policies;
import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.engine.RetryEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Collections;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The endpoint in this JVM, on a free loopback port: what it answers to what, and the lines it says. */
@Isolated("replaces System.err to read the agent's lines")
class MetricsEndpointTest {

    private final RetryEngine engine = RetryEngine.builder().policies(Policies.defaultsOnly(Policy.DEFAULTS)).build();
    private final MetricsPage page = new MetricsPage(engine, new GoverningSwitch(), "1.2.3");

    private static MetricsAddress address(String value) throws Exception {
        return AgentArguments.load("metrics=" + value, Collections.<String, String>emptyMap()).metrics();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Test
    void getAndHeadOfMetricsAnythingElseIs404Or405() throws Exception {
        int port = freePort();
        HttpServer server = MetricsEndpoint.open(address("127.0.0.1:" + port), page, AgentLog.logger());
        try {
            HttpURLConnection get = request(port, "GET", "/metrics", null);
            assertEquals(200, get.getResponseCode());
            assertEquals("text/plain; version=0.0.4; charset=utf-8", get.getContentType());
            String body = body(get);
            assertTrue(body.startsWith("# HELP retry_after_agent_build_info "), body);
            assertTrue(body.contains("retry_after_agent_build_info{version=\"1.2.3\"} 1\n"), body);

            HttpURLConnection openMetrics = request(port, "GET", "/metrics", "application/openmetrics-text;version=1.0.0");
            assertEquals("application/openmetrics-text; version=1.0.0; charset=utf-8", openMetrics.getContentType());
            assertTrue(body(openMetrics).endsWith("# EOF\n"));

            HttpURLConnection head = request(port, "HEAD", "/metrics", null);
            assertEquals(200, head.getResponseCode());
            assertEquals("text/plain; version=0.0.4; charset=utf-8", head.getContentType());

            assertEquals(200, request(port, "GET", "/metrics/", null).getResponseCode());
            HttpURLConnection post = request(port, "POST", "/metrics", null);
            assertEquals(405, post.getResponseCode());
            assertEquals("GET, HEAD", post.getHeaderField("Allow"));
            HttpURLConnection elsewhere = request(port, "GET", "/", null);
            assertEquals(404, elsewhere.getResponseCode());
            assertEquals(404, request(port, "GET", "/metricsx", null).getResponseCode());
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aPortInUseIsOneErrorLineAndNoServer() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String said = stderrOf(() -> assertNull(MetricsEndpoint.open(address("127.0.0.1:" + taken.getLocalPort()), page, AgentLog.logger())));
            assertEquals(1, said.lines().count(), said);
            assertTrue(said.contains(" ERROR retry-after-agent - no metrics endpoint: 127.0.0.1:" + taken.getLocalPort()
                    + " cannot be listened on (") && said.contains("is the port in use?); the agent governs as ever"), said);
        }
    }

    @Test
    void anotherAddressThanLoopbackIsSaidInOneWarnLine() throws Exception {
        InetAddress documentation = InetAddress.getByAddress(new byte[] {(byte) 192, 0, 2, 1}); // TEST-NET-1: nothing is bound
        String warned = stderrOf(() -> MetricsEndpoint.announce(AgentLog.logger(), documentation, "http://192.0.2.1:9464/metrics"));
        assertEquals(1, warned.lines().count(), warned);
        assertTrue(warned.contains(" WARN retry-after-agent - metrics at http://192.0.2.1:9464/metrics, which is not loopback"), warned);

        String loopback = stderrOf(() -> MetricsEndpoint.announce(AgentLog.logger(), InetAddress.getLoopbackAddress(),
                "http://127.0.0.1:9464/metrics"));
        assertTrue(loopback.contains(" INFO retry-after-agent - metrics at http://127.0.0.1:9464/metrics") && loopback.lines().count() == 1,
                loopback);
    }

    private interface Action {
        void run() throws Exception;
    }

    private static String stderrOf(Action action) throws Exception {
        PrintStream before = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, "UTF-8"));
        try {
            action.run();
        } finally {
            System.setErr(before);
        }
        return new String(captured.toByteArray(), StandardCharsets.UTF_8);
    }

    private static HttpURLConnection request(int port, String method, String path, String accept) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) new URL("http://127.0.0.1:" + port + path).openConnection();
        connection.setRequestMethod(method);
        if (accept != null) {
            connection.setRequestProperty("Accept", accept);
        }
        return connection;
    }

    private static String body(HttpURLConnection connection) throws IOException {
        try (InputStream in = connection.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
