package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.demo.portal.PortalStats;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Inconclusive;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.MinSleepFloor;
import dev.retryafter.it.harness.ScraperRun;
import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a client the module's own class path cannot carry, or not on every JDK, must do in child JVMs with the agent
 * attached: the legacy scraper on it against portals whose Retry-After lies; a body it cannot send twice sent once and
 * one it can sent again whole; the last refusal handed to the application with its body; and switched off, the same
 * requests as without the agent. A client is a subclass naming its versions' class paths, its scraper fetchers and its
 * test application, and on which JDKs each scenario runs ({@link Setup}); a scenario it names no JDK for does not run.
 * The row sources are instance methods (one instance per class) so that a subclass overrides them.
 */
@Execution(ExecutionMode.CONCURRENT)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractChildJvmClientSuite {

    static final long MIN_SLEEP = 1_000;
    static final String POLICY = "default.min-sleep = 1s\n"
            + "default.max-sleep = 4s\n"
            + "default.max-attempts = 10\n";
    static final int RECORDS = 40;

    /** One version of the client on one JDK. */
    final class Setup {
        final String version;
        final Jdk jdk;

        Setup(String version, Jdk jdk) {
            this.version = version;
            this.jdk = jdk;
        }

        @Override
        public String toString() {
            return client + " " + version + " on " + jdk;
        }
    }

    /** The client's name, as tests and failures name it. */
    final String client;
    /** The fetcher class the off switch's scraper runs on. */
    final String fetcher;
    /** The test application ({@code get}, {@code post-once}, {@code post-replayable}), or null if the client has none. */
    final String app;

    AbstractChildJvmClientSuite(String client, String fetcher, String app) {
        this.client = client;
        this.fetcher = fetcher;
        this.app = app;
    }

    /** The child JVM's class path: the scraper, this version's jars, and the test applications; here the scraper's own. */
    ChildJvm onClasspath(ChildJvm jvm, Setup setup) {
        return withScraperAndFolders(jvm);
    }

    Setup setup(String version, Jdk jdk) {
        return new Setup(version, jdk);
    }

    /** Rows of (setup, Behaviour, fetcher): 10 requests per 2 s, Retry-After 0 (a hot loop, obeyed) or 3600. */
    abstract Stream<Arguments> lyingPortals();

    /** Rows for {@link #lyingPortals()}: on each JDK, both portals, the fetcher the off switch runs on. */
    Stream<Arguments> bothPortalsOn(String version, Jdk... jdks) {
        return Stream.of(jdks).flatMap(jdk -> Stream.of(Behaviour.ALWAYS_ZERO, Behaviour.CONSTANT_OVERSTATED)
                .map(behaviour -> Arguments.of(setup(version, jdk), behaviour, fetcher)));
    }

    /** How many workers the scraper runs against a lying portal. */
    int workers() {
        return 3;
    }

    /** What the child JVM's log must never say against a lying portal. */
    List<String> neverInTheLog() {
        return List.of("ungoverned", "internal failure");
    }

    /** Where the scenarios below run: nowhere unless the subclass names setups. */
    Stream<Setup> streamedBody() {
        return Stream.empty();
    }

    /** Where the streamed body goes, unless the client cannot send a string again. */
    Stream<Setup> replayableBody() {
        return streamedBody();
    }

    Stream<Setup> lastRefusal() {
        return Stream.empty();
    }

    /** The application's mode that GETs until the last refusal. */
    String lastRefusalMode(Setup setup) {
        return "get";
    }

    Stream<Setup> switchedOff() {
        return Stream.empty();
    }

    @ParameterizedTest(name = "{0}, {1}, {2}")
    @MethodSource("lyingPortals")
    void everyRecordArrivesAndNoWorkerIsSentSoonerThanMinSleepAfterARefusal(Setup setup, Behaviour behaviour, String via)
            throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(behaviour, 10, 2_000))) {
            ScraperRun run = ScraperRun.runAsGiven(onClasspath(new ChildJvm(setup.jdk), setup), POLICY, via, portal.baseUrl(),
                    RECORDS, "--threads", Integer.toString(workers()));
            PortalStats stats = portal.stats();
            System.out.println(setup + " (" + via.substring(via.lastIndexOf('.') + 1) + "), " + behaviour + ": " + run.fetched
                    + " of " + RECORDS + " fetched, " + stats.requests + " requests, " + stats.refusals
                    + " refusals, shortest gap after a worker's own refusal " + stats.shortestGapAfterOwnRefusalMillis + " ms");

            assertEquals(RECORDS, run.fetched, () -> "every record arrives\n" + stats + "\n" + run);
            Inconclusive.unlessRefused(stats.refusals, () -> stats + "\n" + run); // so this test could fail
            MinSleepFloor.assertKept(stats.shortestGapAfterOwnRefusalMillis, MIN_SLEEP, () -> stats + "\n" + run);
            assertTrue(run.jvm.stderr.contains("Retry-After=\"" + (behaviour == Behaviour.ALWAYS_ZERO ? "0" : "3600") + "\""),
                    () -> "each refusal is explained in the log\n" + run);
            for (String never : neverInTheLog()) {
                assertFalse(run.jvm.stderr.contains(never), () -> setup + " is governed: the log never says \"" + never + "\"\n" + run);
            }
        }
    }

    @ParameterizedTest(name = "{0}", allowZeroInvocations = true)
    @MethodSource("streamedBody")
    void aStreamedBodyIsNeverSentTwice(Setup setup) throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("0"))) {
            ChildJvm.Result run = app(setup, POLICY, "post-once", server.url("/upload"));
            assertEquals(0, run.exitCode, run::toString);
            assertTrue(run.stdout.contains("STATUS 429 64"), () -> "the refusal, its body readable, went back to the application\n" + run);
            assertEquals(List.of("once"), server.bodies, () -> "sent once, by the agent and the client alike\n" + run);
            assertFalse(run.stderr.contains("internal failure"), run::toString);
        }
    }

    @ParameterizedTest(name = "{0}", allowZeroInvocations = true)
    @MethodSource("replayableBody")
    void aStringIsSentAgainWhole(Setup setup) throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n == 0 ? Reply.refused("0") : Reply.ok())) {
            ChildJvm.Result run = app(setup, POLICY, "post-replayable", server.url("/upload"));
            assertEquals(0, run.exitCode, run::toString);
            assertTrue(run.stdout.contains("STATUS 200 "), run::toString);
            assertEquals(List.of("every time", "every time"), server.bodies, run::toString);
            assertFalse(run.stderr.contains("internal failure"), run::toString);
        }
    }

    /** The last refusal (max-attempts 3 here) reaches the application with its whole body. */
    @ParameterizedTest(name = "{0}", allowZeroInvocations = true)
    @MethodSource("lastRefusal")
    void theLastRefusalReachesTheApplicationWithItsBody(Setup setup) throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> new Reply(503, "0", 32))) {
            ChildJvm.Result run = app(setup, "default.min-sleep = 1s\ndefault.max-sleep = 4s\ndefault.max-attempts = 3\n",
                    lastRefusalMode(setup), server.url("/records/1"));
            assertEquals(0, run.exitCode, run::toString);
            assertTrue(run.stdout.contains("STATUS 503 32"), () -> "the last refusal, its body whole\n" + run);
            assertEquals(3, server.requests(), run::toString);
            assertFalse(run.stderr.contains("internal failure"), run::toString);
        }
    }

    @ParameterizedTest(name = "{0}", allowZeroInvocations = true)
    @MethodSource("switchedOff")
    void switchedOffTheSameRequestsAsWithoutTheAgent(Setup setup) throws Exception {
        ScraperRun without;
        long requestsWithout;
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 60_000))) {
            without = ScraperRun.runAsGiven(onClasspath(new ChildJvm(setup.jdk), setup), null, fetcher, portal.baseUrl(), 12);
            requestsWithout = portal.stats().requests;
            assertTrue(without.refused > 0, () -> "refusals reach the application\n" + without);
        }
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 60_000))) {
            ScraperRun off = ScraperRun.runAsGiven(onClasspath(new ChildJvm(setup.jdk), setup), POLICY + "enabled = false\n", fetcher,
                    portal.baseUrl(), 12);
            assertEquals(requestsWithout, portal.stats().requests, () -> "the same requests as with no agent at all\n" + off);
            assertEquals(without.fetched, off.fetched);
            assertEquals(without.refused, off.refused);
            assertTrue(off.jvm.stderr.contains("off (enabled=false"), () -> "says it is off\n" + off);
        }
    }

    /** The client's test application with the agent under {@code policy}. */
    ChildJvm.Result app(Setup setup, String policy, String... args) throws Exception {
        Path file = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
        Files.writeString(file, policy);
        return onClasspath(new ChildJvm(setup.jdk), setup).withAgent("config=" + file).main(app, args).run();
    }

    /** The scraper and the jars its name filter picks from the module's class path, and the test applications. */
    static ChildJvm withScraper(ChildJvm jvm, Predicate<String> jars) {
        return jvm.classpath(TestClasspath.SCRAPER.or(jars)).classpathEntry(TestClasspath.testClasses());
    }

    /** The scraper and the test applications, and the jars of the folders named (each a client version the pom copies). */
    static ChildJvm withScraperAndFolders(ChildJvm jvm, String... folders) {
        jvm.classpath(TestClasspath.SCRAPER).classpathEntry(TestClasspath.testClasses());
        for (String folder : folders) {
            TestClasspath.folder(folder).forEach(jvm::classpathEntry);
        }
        return jvm;
    }
}
