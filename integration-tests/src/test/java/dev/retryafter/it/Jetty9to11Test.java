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
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Jetty HttpClient 9.4, 10 and 11, unchanged, in child JVMs with the agent attached (one Jetty per class path, and this
 * module's own is 12): 9.4 on Java 8 and 17, 10 on 11 and 17, 11 on 17 and 25. The legacy scraper on {@code send()} and
 * on {@code send(listener)} against portals whose Retry-After lies; a body Jetty cannot produce twice, and one it can;
 * the last refusal handed to the application's listener with its body; and switched off, the same requests as without
 * the agent.
 */
@Execution(ExecutionMode.CONCURRENT)
class Jetty9to11Test {

    static final String FETCHER = "dev.retryafter.it.apps.java8.JettyLegacyFetcher";
    static final String LISTENER_FETCHER = "dev.retryafter.it.apps.java8.JettyLegacyFetcher$WithListener";
    static final String APP = "dev.retryafter.it.apps.java8.JettyLegacyApp";
    static final long MIN_SLEEP = 1_000;
    static final String POLICY = "default.min-sleep = 1s\n"
            + "default.max-sleep = 4s\n"
            + "default.max-attempts = 10\n";
    static final int RECORDS = 40;

    /** Each Jetty on the oldest Java it runs on, and on a newer one. */
    static Stream<Arguments> jettyAndJdk() {
        return Stream.of(Arguments.of("9.4", Jdk.JAVA_8), Arguments.of("9.4", Jdk.JAVA_17), Arguments.of("10", Jdk.JAVA_11),
                Arguments.of("10", Jdk.JAVA_17), Arguments.of("11", Jdk.JAVA_17), Arguments.of("11", Jdk.JAVA_25));
    }

    /** Each Jetty once on its oldest Java: {@code send()} against Retry-After 3600, and {@code send(listener)} against 0. */
    static Stream<Arguments> lyingPortals() {
        return Stream.of(Arguments.of("9.4", Jdk.JAVA_8, Behaviour.ALWAYS_ZERO, LISTENER_FETCHER),
                Arguments.of("9.4", Jdk.JAVA_8, Behaviour.CONSTANT_OVERSTATED, FETCHER),
                Arguments.of("10", Jdk.JAVA_11, Behaviour.ALWAYS_ZERO, FETCHER),
                Arguments.of("10", Jdk.JAVA_17, Behaviour.CONSTANT_OVERSTATED, LISTENER_FETCHER),
                Arguments.of("11", Jdk.JAVA_17, Behaviour.ALWAYS_ZERO, LISTENER_FETCHER),
                Arguments.of("11", Jdk.JAVA_25, Behaviour.CONSTANT_OVERSTATED, FETCHER));
    }

    /** The scraper, this Jetty's jars (from their folder; the scraper's own slf4j-api), and the test applications. */
    static ChildJvm onClasspath(ChildJvm jvm, String jetty) {
        jvm.classpath(TestClasspath.SCRAPER).classpathEntry(TestClasspath.testClasses());
        for (String jar : TestClasspath.folder("jetty-" + jetty)) {
            if (!jar.contains("slf4j-api")) {
                jvm.classpathEntry(jar);
            }
        }
        return jvm;
    }

    /** 10 requests per 2 s, Retry-After 0 (a hot loop, obeyed) or 3600; three workers. */
    @ParameterizedTest(name = "Jetty {0} on {1}, {2}, {3}")
    @MethodSource("lyingPortals")
    void everyRecordArrivesAndNoWorkerIsSentSoonerThanMinSleepAfterARefusal(String jetty, Jdk jdk, Behaviour behaviour, String fetcher)
            throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(behaviour, 10, 2_000))) {
            ScraperRun run = ScraperRun.runAsGiven(onClasspath(new ChildJvm(jdk), jetty), POLICY, fetcher, portal.baseUrl(), RECORDS,
                    "--threads", "3");
            PortalStats stats = portal.stats();
            System.out.println("Jetty " + jetty + " (" + fetcher.substring(fetcher.lastIndexOf('.') + 1) + "), " + behaviour + " on " + jdk
                    + ": " + run.fetched + " of " + RECORDS + " fetched, " + stats.requests + " requests, " + stats.refusals
                    + " refusals, shortest gap after a worker's own refusal " + stats.shortestGapAfterOwnRefusalMillis + " ms");

            assertEquals(RECORDS, run.fetched, () -> "every record arrives\n" + stats + "\n" + run);
            Inconclusive.unlessRefused(stats.refusals, () -> stats + "\n" + run); // so this test could fail
            MinSleepFloor.assertKept(stats.shortestGapAfterOwnRefusalMillis, MIN_SLEEP, () -> stats + "\n" + run);
            assertTrue(run.jvm.stderr.contains("Retry-After=\"" + (behaviour == Behaviour.ALWAYS_ZERO ? "0" : "3600") + "\""),
                    () -> "each refusal is explained in the log\n" + run);
            assertFalse(run.jvm.stderr.contains("ungoverned"), () -> "Jetty " + jetty + " is governed: no warning\n" + run);
            assertFalse(run.jvm.stderr.contains("internal failure"), run::toString);
        }
    }

    @ParameterizedTest(name = "Jetty {0} on {1}")
    @MethodSource("jettyAndJdk")
    void aStreamedBodyIsNeverSentTwiceAndAStringIsSentAgainWhole(String jetty, Jdk jdk) throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("0"))) {
            ChildJvm.Result run = app(jetty, jdk, "post-once", server.url("/upload"));
            assertEquals(0, run.exitCode, run::toString);
            assertTrue(run.stdout.contains("STATUS 429 "), () -> "the refusal went back to the application\n" + run);
            assertEquals(List.of("once"), server.bodies, () -> "sent once, by the agent and the client alike\n" + run);
        }
        try (ScriptedServer server = new ScriptedServer(n -> n == 0 ? Reply.refused("0") : Reply.ok())) {
            ChildJvm.Result run = app(jetty, jdk, "post-replayable", server.url("/upload"));
            assertEquals(0, run.exitCode, run::toString);
            assertTrue(run.stdout.contains("STATUS 200 "), run::toString);
            assertEquals(List.of("every time", "every time"), server.bodies, run::toString);
        }
    }

    /** The last refusal (max-attempts 3 here) reaches the application's own listener with its whole body, on both paths. */
    @ParameterizedTest(name = "Jetty {0} on {1}")
    @MethodSource("jettyAndJdk")
    void theLastRefusalReachesTheApplicationWithItsBody(String jetty, Jdk jdk) throws Exception {
        String mode = jdk == Jdk.JAVA_17 ? "get-listener" : "get";
        try (ScriptedServer server = new ScriptedServer(n -> new Reply(503, "0", 32))) {
            ChildJvm.Result run = appWithPolicy(jetty, jdk, "default.min-sleep = 1s\ndefault.max-sleep = 4s\ndefault.max-attempts = 3\n", mode, server.url("/records/1"));
            assertEquals(0, run.exitCode, run::toString);
            assertTrue(run.stdout.contains("STATUS 503 32"), () -> "the last refusal, its body whole\n" + run);
            assertEquals(3, server.requests(), run::toString);
        }
    }

    @ParameterizedTest(name = "Jetty {0} on {1}")
    @MethodSource("jettyAndJdk")
    void switchedOffTheSameRequestsAsWithoutTheAgent(String jetty, Jdk jdk) throws Exception {
        ScraperRun without;
        long requestsWithout;
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 60_000))) {
            without = ScraperRun.runAsGiven(onClasspath(new ChildJvm(jdk), jetty), null, FETCHER, portal.baseUrl(), 12);
            requestsWithout = portal.stats().requests;
            assertTrue(without.refused > 0, () -> "refusals reach the application\n" + without);
        }
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 60_000))) {
            ScraperRun off = ScraperRun.runAsGiven(onClasspath(new ChildJvm(jdk), jetty), POLICY + "enabled = false\n", FETCHER,
                    portal.baseUrl(), 12);
            assertEquals(requestsWithout, portal.stats().requests, () -> "the same requests as with no agent at all\n" + off);
            assertEquals(without.fetched, off.fetched);
            assertEquals(without.refused, off.refused);
            assertTrue(off.jvm.stderr.contains("off (enabled=false"), () -> "says it is off\n" + off);
        }
    }

    private static ChildJvm.Result app(String jetty, Jdk jdk, String... args) throws Exception {
        return appWithPolicy(jetty, jdk, POLICY, args);
    }

    private static ChildJvm.Result appWithPolicy(String jetty, Jdk jdk, String policy, String... args) throws Exception {
        Path file = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
        Files.writeString(file, policy);
        return onClasspath(new ChildJvm(jdk), jetty).withAgent("config=" + file).main(APP, args).run();
    }
}
