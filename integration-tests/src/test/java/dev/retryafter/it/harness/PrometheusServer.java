package dev.retryafter.it.harness;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real Prometheus server of the test's own (Debian's {@code prometheus} package), run from its binary
 * on a free loopback port with a generated configuration that scrapes one target every second: never
 * the system's service. Where no {@code prometheus} (or {@code promtool}) is installed, the tests that
 * need one are skipped with a loud banner, except in CI ({@code CI=true}), where they fail, as the
 * Redis tests do ({@code .ci/run} installs the package).
 */
public final class PrometheusServer implements AutoCloseable {

    /** The scrape job's name, which {@code up{job=...}} is asked about. */
    public static final String JOB = "retry-after-agent";
    private static final AtomicBoolean BANNER_SHOWN = new AtomicBoolean();
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    /** A sample's value in an instant query's answer: {@code "value":[1733200000.123,"7"]}. */
    private static final Pattern VALUE = Pattern.compile("\"value\":\\[[0-9.eE+-]+,\"([^\"]+)\"\\]");

    private final Process process;
    private final int port;
    private final Path log;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private PrometheusServer(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Started, and ready to answer queries, scraping {@code target} ({@code 127.0.0.1:PORT}) every second. */
    public static PrometheusServer start(String target) throws IOException, InterruptedException {
        String executable = executableOrSkip("prometheus");
        Path dir = Files.createTempDirectory(ChildJvm.workDir(), "prometheus-");
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, "global:\n"
                + "  scrape_interval: 1s\n"
                + "  scrape_timeout: 1s\n"
                + "scrape_configs:\n"
                + "  - job_name: " + JOB + "\n"
                + "    static_configs:\n"
                + "      - targets: ['" + target + "']\n");
        int port = freePort();
        Path log = dir.resolve("prometheus.log");
        List<String> command = List.of(executable, "--config.file=" + config, "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port, "--log.level=warn");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        PrometheusServer server = new PrometheusServer(process, port, log);
        try {
            server.awaitReady();
        } catch (IOException | InterruptedException | RuntimeException | Error e) {
            server.close();
            throw e;
        }
        return server;
    }

    private void awaitReady() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                Assertions.fail("prometheus exited at start (" + process.exitValue() + "): " + logText());
            }
            try {
                if (get("/-/ready").statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        Assertions.fail("prometheus was not ready on port " + port + " within " + PATIENCE.toSeconds() + " s: " + logText());
    }

    /** The value of an instant query that answers one sample; null while it answers none. */
    public String query(String promql) throws IOException, InterruptedException {
        HttpResponse<String> answer = get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        if (answer.statusCode() != 200 || !answer.body().contains("\"status\":\"success\"")) {
            throw new AssertionError("prometheus answered " + answer.statusCode() + " to " + promql + ": " + answer.body());
        }
        Matcher value = VALUE.matcher(answer.body());
        if (!value.find()) {
            return null;
        }
        String first = value.group(1);
        if (value.find()) {
            throw new AssertionError(promql + " answered more than one sample: " + answer.body());
        }
        return first;
    }

    /** Asks {@code promql} until it answers {@code expected} (bounded: the scrapes come every second); fails with the last answer. */
    public void awaitValue(String promql, String expected) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        String last = null;
        while (System.nanoTime() < deadline) {
            last = query(promql);
            if (expected.equals(last)) {
                return;
            }
            Thread.sleep(250);
        }
        throw new AssertionError(promql + " answered " + last + ", not " + expected + ", within " + PATIENCE.toSeconds() + " s;"
                + " targets: " + get("/api/v1/targets").body() + "\nlog: " + logText());
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private String logText() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** What {@code promtool check metrics} said of {@code text} (its standard input), and how it exited. */
    public static final class Check {
        public final int exitCode;
        public final String output;

        Check(int exitCode, String output) {
            this.exitCode = exitCode;
            this.output = output;
        }

        @Override
        public String toString() {
            return "promtool check metrics exited " + exitCode + ": " + output;
        }
    }

    public static Check checkMetrics(String text) throws IOException, InterruptedException {
        Process promtool = new ProcessBuilder(executableOrSkip("promtool"), "check", "metrics").redirectErrorStream(true).start();
        try (OutputStream in = promtool.getOutputStream()) {
            in.write(text.getBytes(StandardCharsets.UTF_8));
        }
        String output = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!promtool.waitFor(60, TimeUnit.SECONDS)) {
            promtool.destroyForcibly();
            throw new AssertionError("promtool check metrics did not end within 60 s: " + output);
        }
        return new Check(promtool.exitValue(), output);
    }

    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static String executableOrSkip(String name) {
        String found = find(name);
        if (found != null) {
            return found;
        }
        String message = name + " NOT FOUND (PROMETHEUS_BIN, PATH, /usr/bin, /usr/local/bin): the metrics endpoint's tests against a"
                + " real Prometheus were NOT RUN. Install it (apt-get install -y --no-install-recommends prometheus; its service need"
                + " not run: the tests start their own).";
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            Assertions.fail(message + " CI=true: failing rather than skipping.");
        }
        if (BANNER_SHOWN.compareAndSet(false, true)) {
            String bar = "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!";
            System.err.println(bar + "\n!!! " + message + "\n" + bar);
        }
        Assumptions.abort(message);
        return null;
    }

    /** {@code PROMETHEUS_BIN} names the folder of both binaries when set (and only it is tried); else PATH and the usual places. */
    private static String find(String name) {
        List<String> places = new ArrayList<>();
        String named = System.getenv("PROMETHEUS_BIN");
        if (named != null && !named.isEmpty()) {
            places.add(named);
        } else {
            String path = System.getenv("PATH");
            if (path != null) {
                places.addAll(List.of(path.split(File.pathSeparator)));
            }
            places.add("/usr/bin");
            places.add("/usr/local/bin");
        }
        for (String dir : places) {
            File candidate = new File(dir, name);
            if (candidate.isFile() && candidate.canExecute()) {
                return candidate.getPath();
            }
        }
        return null;
    }
}
