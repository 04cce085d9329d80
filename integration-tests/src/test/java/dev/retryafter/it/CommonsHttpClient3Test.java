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
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Commons HttpClient 3.1, unchanged, in child JVMs on Java 8 and 17 with the agent attached: the legacy
 * scraper on it (no retry logic of its own) against portals whose Retry-After lies, a body it cannot
 * send twice, and careless code under a cap of one. Its own test rather than a row of
 * {@code Clients.GOVERNED}, which would add it to every scenario on every JDK.
 */
@Execution(ExecutionMode.CONCURRENT)
class CommonsHttpClient3Test {

    static final String FETCHER = "dev.retryafter.it.apps.java8.CommonsHttp3Fetcher";
    static final String APP = "dev.retryafter.it.apps.java8.CommonsHttp3App";
    static final long MIN_SLEEP = 1_000;
    static final String POLICY = "default.min-sleep = 1s\n"
            + "default.max-sleep = 4s\n"
            + "default.max-attempts = 10\n";
    static final int RECORDS = 40;

    static Stream<Arguments> lyingPortals() {
        return Stream.of(Jdk.JAVA_8, Jdk.JAVA_17).flatMap(jdk -> Stream.of(Behaviour.ALWAYS_ZERO, Behaviour.CONSTANT_OVERSTATED)
                .map(behaviour -> Arguments.of(jdk, behaviour)));
    }

    /** 10 requests per 2 s, Retry-After 0 (a hot loop, obeyed) or 3600 (an hour's stall, obeyed); two workers. */
    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("lyingPortals")
    void everyRecordArrivesAndNoWorkerIsSentSoonerThanMinSleepAfterARefusal(Jdk jdk, Behaviour behaviour) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(behaviour, 10, 2_000))) {
            ScraperRun run = ScraperRun.run(new ChildJvm(jdk).classpathEntry(TestClasspath.testClasses()), POLICY, FETCHER, portal.baseUrl(), RECORDS, "--threads", "2");
            PortalStats stats = portal.stats();
            System.out.println("Commons HttpClient 3, " + behaviour + " on " + jdk + ": " + run.fetched + " of " + RECORDS
                    + " fetched, " + stats.refusals + " refusals, shortest gap after a worker's own refusal "
                    + stats.shortestGapAfterOwnRefusalMillis + " ms");

            assertEquals(RECORDS, run.fetched, () -> "every record arrives\n" + stats + "\n" + run);
            Inconclusive.unlessRefused(stats.refusals, () -> stats + "\n" + run); // so this test could fail
            MinSleepFloor.assertKept(stats.shortestGapAfterOwnRefusalMillis, MIN_SLEEP, () -> stats + "\n" + run);
            assertTrue(run.jvm.stderr.contains("Retry-After=\"" + (behaviour == Behaviour.ALWAYS_ZERO ? "0" : "3600") + "\""),
                    () -> "each refusal is explained in the log\n" + run);
            assertFalse(run.jvm.stderr.contains("ungoverned"), () -> "Commons HttpClient 3 is governed: no exit warning\n" + run);
            assertFalse(run.jvm.stderr.contains("Commons HttpClient 3"), run::toString);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_8", "JAVA_17"})
    void aStreamedBodyIsNeverSentTwice(Jdk jdk) throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("0"))) {
            ChildJvm.Result run = app(jdk, POLICY, "post-once", server.url("/upload"));
            assertEquals(0, run.exitCode, run::toString);
            assertTrue(run.stdout.contains("STATUS 429 64"), () -> "the refusal, its body readable, went back to the application\n" + run);
            assertEquals(List.of("once"), server.bodies, () -> "sent once, by the agent and the client alike\n" + run);
        }
    }

    /** Careless code keeps no permit for ever: 60 requests one after another under a cap of one all go out. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_8", "JAVA_17"})
    void carelessCodeUnderACapOfOneNeverWaitsForAPermitForEver(Jdk jdk) throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.ok())) {
            ChildJvm.Result run = app(jdk, POLICY + "default.max-concurrency = 1\n", "careless", server.url("/records/1"), "60");
            assertEquals(0, run.exitCode, run::toString);
            assertTrue(run.stdout.contains("DONE 60 "), () -> "every request answered\n" + run);
            assertEquals(60, server.requests(), run::toString);
        }
    }

    private static ChildJvm.Result app(Jdk jdk, String policy, String... args) throws Exception {
        Path file = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
        Files.writeString(file, policy);
        return new ChildJvm(jdk).classpath(TestClasspath.SCRAPER).classpathEntry(TestClasspath.testClasses())
                .withAgent("config=" + file).main(APP, args).run();
    }
}
