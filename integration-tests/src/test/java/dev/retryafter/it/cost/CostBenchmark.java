package dev.retryafter.it.cost;

import dev.retryafter.agent.store.redis.RedisServer;
import dev.retryafter.it.harness.BenchmarkMain;
import org.opentest4j.TestAbortedException;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.List;

/**
 * Benchmark 2, the cost of the agent, in real time on real JVMs: happy-path throughput through
 * {@code HttpClient.send} and Apache HttpClient 5 with and without the agent, in alternating rounds;
 * time to the first response on Java 17 and 25 for each client; retained heap per tracked host and
 * over a long run on one host; the time and bytes to write the state of 10,000 hosts to the state
 * file, and to read it back; and one happy-path cell again with the fleet store on a redis-server
 * of its own ({@code store = redis://...}, a host never refused). Prints a Markdown report and writes the same to a file.
 *
 * <p>Arguments: {@code --smoke} for the quick run; {@code --out=PATH} for the file, which the system
 * property {@value #OUTPUT_PROPERTY} also sets; default {@value #DEFAULT_OUTPUT} under the current directory.
 */
public final class CostBenchmark {

    static final String OUTPUT_PROPERTY = "cost.out";
    static final String DEFAULT_OUTPUT = "benchmark-results/cost.md";

    private CostBenchmark() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        BenchmarkMain main = BenchmarkMain.parse(args, OUTPUT_PROPERTY, DEFAULT_OUTPUT);
        defaultHarnessProperties();
        main.publish(run(main.smoke ? CostSettings.smoke() : CostSettings.full()).markdown());
    }

    /**
     * Start-up and the happy path against one loopback server, warmed first; then the engine on its own,
     * which needs no server; then the state file, in this JVM.
     */
    static CostReport run(CostSettings settings) throws IOException, InterruptedException {
        ZonedDateTime startedAt = ZonedDateTime.now();
        double loadAtStart = loadAverage();
        long wallStart = System.nanoTime();
        Snapshot snapshot = Snapshot.take();
        List<StartUp.Cell> startUp;
        List<HappyPath.Cell> happy;
        RedisServer redis = redisOrNone();
        try (ServerJvm server = ServerJvm.start(snapshot)) {
            HappyPath.warmUpServer(settings, snapshot, server.url());
            startUp = StartUp.run(settings, snapshot, server.url());
            happy = HappyPath.run(settings, snapshot, server.url(), redis == null ? null : "redis://127.0.0.1:" + redis.port());
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
        EngineCost.Result engine = EngineCost.run(settings, snapshot);
        StateFileCost.Result stateFile = StateFileCost.run(settings);
        long wallMillis = (System.nanoTime() - wallStart) / 1_000_000;
        return new CostReport(settings, startedAt, wallMillis, loadAtStart, loadAverage(), snapshot.agentSource(),
                snapshot.agentJarBytes(), happy, startUp, engine, stateFile, CostTargets.check(settings, happy, startUp, engine));
    }

    /** The fleet store's arm needs a redis-server; without one (outside CI) a loud line, and its row is not measured. */
    private static RedisServer redisOrNone() throws IOException, InterruptedException {
        try {
            return RedisServer.start();
        } catch (TestAbortedException e) { // none installed, outside CI: in CI, RedisServer fails instead
            loud("no redis-server: the happy path with the fleet store is not measured");
            return null;
        }
    }

    /**
     * The harness takes its paths from system properties that surefire sets. Under {@code exec:java},
     * started from the repository root, they are unset and the harness's defaults, relative to the
     * module, would point outside it; so each unset one is derived from where this class was loaded,
     * {@code integration-tests/target/test-classes}. Child JVMs work in a folder of their own, apart
     * from any test run's.
     */
    static void defaultHarnessProperties() {
        Path testClasses;
        try {
            testClasses = Path.of(CostBenchmark.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot tell where the test classes are", e);
        }
        Path target = testClasses.getParent();
        setIfAbsent("test.classes", testClasses.toString());
        setIfAbsent("test.classpath.file", target.resolve("test-classpath.txt").toString());
        setIfAbsent("agent.jar", target.getParent().resolveSibling("agent").resolve("target/retry-after-agent.jar").toString());
        setIfAbsent("work.dir", target.resolve("cost-work").toString());
        // The integration-tests pom's default; Java 17's is this JVM's own home, as the harness already assumes.
        setIfAbsent("java25.home", "/usr/lib/jvm/temurin-25-jdk-amd64");
    }

    private static void setIfAbsent(String property, String value) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, value);
        }
    }

    /** What is being run, on standard error, so the report on standard output stays clean. */
    static void progress(String message) {
        System.err.println("[cost] " + message);
    }

    /** A part that could not run, impossible to overlook in the output. */
    static void loud(String message) {
        System.err.println("\n!!!!!!!! " + message + " !!!!!!!!\n");
    }

    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

}
