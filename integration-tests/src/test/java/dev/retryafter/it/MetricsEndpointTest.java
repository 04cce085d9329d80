package dev.retryafter.it;

import dev.retryafter.agent.engine.Reason;
import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.demo.portal.PortalStats;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Inconclusive;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.PrometheusServer;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code metrics = 127.0.0.1:PORT} in a scraper's JVM, against a lying loopback portal: the endpoint
 * serves what the agent counted (the portal's own counts, to the request), promtool reads the page
 * as valid, and a real Prometheus server scrapes it and answers a query with the portal's refusals.
 */
@Execution(ExecutionMode.CONCURRENT)
class MetricsEndpointTest {

    static final Duration PATIENCE = Duration.ofSeconds(60);
    static final String APP = "dev.retryafter.it.apps.java8.CommandedUrlConnectionApp";
    static final int RECORDS = 12;
    /**
     * A lambda class of the endpoint's, as {@code -verbose:class} names it on Java 8 and on 9 and later: its
     * thread runs while the application starts (StartUpTest holds the rest of the agent to the same).
     */
    static final Pattern METRICS_LAMBDA = Pattern.compile("dev\\.retryafter\\.agent\\.(metrics\\.|config\\.MetricsAddress)\\S*\\$\\$Lambda");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /** The oldest and the newest JDK's HTTP server; the build's own is the Prometheus test's. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_8", "JAVA_25"})
    void theEndpointServesWhatThePortalSawAndPromtoolReadsIt(Jdk jdk) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 1_000))) {
            int port = PrometheusServer.freePort();
            ChildJvm.Running app = start(jdk, portal, "metrics = 127.0.0.1:" + port + "\n", "-verbose:class");
            try {
                app.awaitLine("READY", PATIENCE);
                String before = awaitScrape(port).body();
                assertFalse(before.contains("host=\""), "a host never seen has no series:\n" + before);
                assertEquals("1", value(before, "retry_after_agent_enabled"), before);
                assertEquals("1", value(before, "retry_after_agent_mode{mode=\"enforce\"}"), before);
                assertEquals("0", value(before, "retry_after_agent_mode{mode=\"observe\"}"), before);

                app.send("fetch " + RECORDS);
                assertEquals("FETCHED 1 ok=" + RECORDS + " refused=0", app.awaitLine("FETCHED 1 ", PATIENCE), "governed: every refusal retried");
                PortalStats seen = portal.stats();
                Inconclusive.unlessRefused(seen.refusals, seen::toString);

                HttpResponse<String> scrape = scrape(port, "/metrics", null);
                assertEquals(200, scrape.statusCode());
                assertEquals("text/plain; version=0.0.4; charset=utf-8", scrape.headers().firstValue("Content-Type").orElse(""));
                String page = scrape.body();
                String host = "host=\"127.0.0.1:" + portal.port() + "\"";
                assertEquals(Long.toString(seen.requests), value(page, "retry_after_agent_requests_total{" + host + "}"), page);
                assertEquals(Long.toString(seen.refusals), value(page, "retry_after_agent_refusals_total{" + host + ",status=\"429\"}"), page);
                assertEquals(Long.toString(seen.refusals), value(page, "retry_after_agent_retries_total{" + host + "}"), page);
                assertEquals("0", value(page, "retry_after_agent_given_up_total{" + host + "}"), page);
                assertEquals("0", value(page, "retry_after_agent_held{" + host + "}"), page);
                assertEquals("0", value(page, "retry_after_agent_in_flight{" + host + "}"), page);
                Map<String, Double> waits = waitsByCause(page, host);
                assertTrue(waits.values().stream().mapToDouble(Double::doubleValue).sum()
                        >= seen.refusals * LyingHeadersTest.MIN_SLEEP / 1000.0, "each refusal waited min-sleep at least\n" + page);
                // Each cause is a name of the one vocabulary (a refusal's reason, or PACE once the refusal's moment passed).
                waits.keySet().forEach(Reason::valueOf);
                assertEquals("1", value(page, "retry_after_agent_hosts_tracked"), page);

                PrometheusServer.Check check = PrometheusServer.checkMetrics(page);
                assertEquals(0, check.exitCode, check + "\n" + page);

                HttpResponse<String> openMetrics = scrape(port, "/metrics",
                        "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1");
                assertEquals("application/openmetrics-text; version=1.0.0; charset=utf-8",
                        openMetrics.headers().firstValue("Content-Type").orElse(""));
                assertTrue(openMetrics.body().contains("# TYPE retry_after_agent_refusals counter\n"), openMetrics.body());
                assertTrue(openMetrics.body().endsWith("# EOF\n"), openMetrics.body());
                assertEquals(404, scrape(port, "/", null).statusCode());

                app.send("exit");
                ChildJvm.Result result = app.finish();
                assertEquals(0, result.exitCode, result::toString);
                assertTrue(result.stderr.contains("metrics at http://127.0.0.1:" + port + "/metrics"), result::toString);
                assertEquals(List.of(), errorLines(result), result::toString);
                List<String> lambdas = result.stdout.lines().filter(line -> METRICS_LAMBDA.matcher(line).find()).collect(Collectors.toList());
                assertEquals(List.of(), lambdas, "no lambda of the endpoint's, its thread and scrapes included");
            } finally {
                app.process.destroyForcibly();
            }
        }
    }

    @Test
    void aRealPrometheusScrapesTheEndpointAndAnswersWithThePortalsRefusals() throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 1_000))) {
            int port = PrometheusServer.freePort();
            try (PrometheusServer prometheus = PrometheusServer.start("127.0.0.1:" + port)) {
                ChildJvm.Running app = start(Jdk.JAVA_17, portal, "metrics = 127.0.0.1:" + port + "\n");
                try {
                    app.awaitLine("READY", PATIENCE);
                    prometheus.awaitValue("up{job=\"" + PrometheusServer.JOB + "\"}", "1");
                    prometheus.awaitValue("retry_after_agent_enabled", "1");
                    app.send("fetch " + RECORDS);
                    assertEquals("FETCHED 1 ok=" + RECORDS + " refused=0", app.awaitLine("FETCHED 1 ", PATIENCE));
                    PortalStats seen = portal.stats();
                    Inconclusive.unlessRefused(seen.refusals, seen::toString);

                    String host = "host=\"127.0.0.1:" + portal.port() + "\"";
                    prometheus.awaitValue("retry_after_agent_refusals_total{" + host + ",status=\"429\"}", Long.toString(seen.refusals));
                    prometheus.awaitValue("retry_after_agent_requests_total{" + host + "}", Long.toString(seen.requests));
                    prometheus.awaitValue("sum by (host) (retry_after_agent_refusals_total{" + host + "})", Long.toString(seen.refusals));
                    // The time waited, by cause: as many series in Prometheus as the page has, each cause a reason's name.
                    Map<String, Double> waits = waitsByCause(scrape(port, "/metrics", null).body(), host);
                    assertFalse(waits.isEmpty(), "the refusals were waited out");
                    prometheus.awaitValue("count(retry_after_agent_wait_seconds_total{" + host + "})", Integer.toString(waits.size()));
                    String cause = waits.keySet().iterator().next();
                    Reason.valueOf(cause);
                    prometheus.awaitValue("count(retry_after_agent_wait_seconds_total{" + host + ",cause=\"" + cause + "\"} > 0)", "1");

                    String page = scrape(port, "/metrics", null).body();
                    PrometheusServer.Check check = PrometheusServer.checkMetrics(page);
                    assertEquals(0, check.exitCode, check + "\n" + page);
                    app.send("exit");
                    ChildJvm.Result result = app.finish();
                    assertEquals(0, result.exitCode, result::toString);
                    assertEquals(List.of(), errorLines(result), result::toString);
                } finally {
                    app.process.destroyForcibly();
                }
            }
        }
    }

    /** A port someone else has: one ERROR line that names it, and the scraper governed as ever. */
    @Test
    void aPortInUseIsOneErrorLineAndTheAgentGovernsAsEver() throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 1_000));
             ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            ChildJvm.Running app = start(Jdk.JAVA_17, portal, "metrics = 127.0.0.1:" + taken.getLocalPort() + "\n");
            try {
                app.awaitLine("READY", PATIENCE);
                app.send("fetch " + RECORDS);
                assertEquals("FETCHED 1 ok=" + RECORDS + " refused=0", app.awaitLine("FETCHED 1 ", PATIENCE), "governed: every refusal retried");
                Inconclusive.unlessRefused(portal.stats().refusals, portal.stats()::toString);
                app.send("exit");
                ChildJvm.Result result = app.finish();
                assertEquals(0, result.exitCode, result::toString);
                List<String> errors = errorLines(result);
                assertEquals(1, errors.size(), result::toString);
                assertTrue(errors.get(0).contains("no metrics endpoint: 127.0.0.1:" + taken.getLocalPort() + " cannot be listened on")
                        && errors.get(0).contains("is the port in use?") && errors.get(0).contains("the agent governs as ever"), errors.get(0));
                assertFalse(result.stderr.contains("metrics at http"), result::toString);
            } finally {
                app.process.destroyForcibly();
            }
        }
    }

    /**
     * The endpoint up and scraped before the application names its own JUL log manager (as jboss-modules
     * does in main): the application still gets it, since the JDK's HTTP server logs through
     * {@code System.Logger} from Java 9 on and makes no LogManager.
     */
    @Test
    void theApplicationStillGetsItsOwnLogManager() throws Exception {
        int port = PrometheusServer.freePort();
        Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
        Files.writeString(policy, "metrics = 127.0.0.1:" + port + "\n");
        ChildJvm.Running app = new ChildJvm(Jdk.JAVA_17).classpathEntry(TestClasspath.testClasses()).withAgent(policy.toString())
                .main("dev.retryafter.it.apps.LogManagerAfterScrapeApp", Integer.toString(port)).start();
        try {
            ChildJvm.Result result = app.finish();
            assertEquals(0, result.exitCode, result::toString);
            assertTrue(result.stdout.contains("SCRAPED 200"), result::toString);
            assertTrue(result.stdout.contains("LOG_MANAGER OwnLogManager"), result::toString);
        } finally {
            app.process.destroyForcibly();
        }
    }

    private static ChildJvm.Running start(Jdk jdk, PortalServer portal, String metricsLine, String... jvmArgs) throws IOException {
        Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
        Files.writeString(policy, LyingHeadersTest.POLICY + metricsLine);
        ChildJvm jvm = new ChildJvm(jdk).classpathEntry(TestClasspath.testClasses()).withAgent(policy.toString());
        for (String arg : jvmArgs) {
            jvm.jvmArg(arg);
        }
        return jvm.main(APP, portal.baseUrl()).start();
    }

    /** The first scrape: the endpoint starts on a thread of its own, so it is asked until it answers (bounded). */
    private HttpResponse<String> awaitScrape(int port) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            try {
                HttpResponse<String> response = scrape(port, "/metrics", null);
                assertEquals(200, response.statusCode(), response::body);
                return response;
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the metrics endpoint on port " + port + " never answered", notYet);
                }
                Thread.sleep(50);
            }
        }
    }

    private HttpResponse<String> scrape(int port, String path, String accept) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30));
        if (accept != null) {
            request.header("Accept", accept);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The value of one series, named with its labels as the page writes them; fails when the page has none. */
    /** The host's {@code wait_seconds_total} series, by their {@code cause} label. */
    static Map<String, Double> waitsByCause(String page, String host) {
        Map<String, Double> waits = new TreeMap<>();
        Matcher line = Pattern.compile("^retry_after_agent_wait_seconds_total\\{" + Pattern.quote(host) + ",cause=\"([A-Z_]+)\"\\} (\\S+)$",
                Pattern.MULTILINE).matcher(page);
        while (line.find()) {
            waits.put(line.group(1), Double.parseDouble(line.group(2)));
        }
        return waits;
    }

    static String value(String page, String series) {
        Matcher line = Pattern.compile("^" + Pattern.quote(series) + " (\\S+)$", Pattern.MULTILINE).matcher(page);
        if (!line.find()) {
            throw new AssertionError("no series " + series + " in\n" + page);
        }
        return line.group(1);
    }

    private static List<String> errorLines(ChildJvm.Result result) {
        return result.stderr.lines().filter(line -> line.contains(" ERROR ")).collect(Collectors.toList());
    }
}
