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
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Apache HttpAsyncClient 4.1, unchanged and built with its defaults, in child JVMs on Java 8 and 17 with the agent
 * attached: the legacy scraper on it (no retry logic of its own) against portals whose Retry-After lies; and switched
 * off, the same requests as without the agent. Its own test rather than a row of {@code Clients.GOVERNED}, which would
 * add it to every scenario on every JDK.
 */
@Execution(ExecutionMode.CONCURRENT)
class Apache4AsyncTest {

    static final String FETCHER = "dev.retryafter.it.apps.java8.Apache4AsyncFetcher";
    static final long MIN_SLEEP = 1_000;
    static final String POLICY = "default.min-sleep = 1s\n"
            + "default.max-sleep = 4s\n"
            + "default.max-attempts = 10\n";
    static final int RECORDS = 40;

    static Stream<Arguments> lyingPortals() {
        return Stream.of(Jdk.JAVA_8, Jdk.JAVA_17).flatMap(jdk -> Stream.of(Behaviour.ALWAYS_ZERO, Behaviour.CONSTANT_OVERSTATED)
                .map(behaviour -> Arguments.of(jdk, behaviour)));
    }

    /** The scraper and HttpAsyncClient 4.1's jars, and only those. */
    static ChildJvm onClasspath(ChildJvm jvm) {
        return jvm.classpath(TestClasspath.SCRAPER.or(name -> name.startsWith("httpasyncclient") || name.startsWith("httpcore-nio")))
                .classpathEntry(TestClasspath.testClasses());
    }

    /** 10 requests per 2 s, Retry-After 0 (a hot loop, obeyed) or 3600; three workers. */
    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("lyingPortals")
    void everyRecordArrivesAndNoWorkerIsSentSoonerThanMinSleepAfterARefusal(Jdk jdk, Behaviour behaviour) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(behaviour, 10, 2_000))) {
            ScraperRun run = ScraperRun.runAsGiven(onClasspath(new ChildJvm(jdk)), POLICY, FETCHER, portal.baseUrl(), RECORDS,
                    "--threads", "3");
            PortalStats stats = portal.stats();
            System.out.println("Apache HttpAsyncClient 4.1, " + behaviour + " on " + jdk + ": " + run.fetched + " of " + RECORDS
                    + " fetched, " + stats.refusals + " refusals, shortest gap after a worker's own refusal "
                    + stats.shortestGapAfterOwnRefusalMillis + " ms");

            assertEquals(RECORDS, run.fetched, () -> "every record arrives\n" + stats + "\n" + run);
            Inconclusive.unlessRefused(stats.refusals, () -> stats + "\n" + run); // so this test could fail
            MinSleepFloor.assertKept(stats.shortestGapAfterOwnRefusalMillis, MIN_SLEEP, () -> stats + "\n" + run);
            assertTrue(run.jvm.stderr.contains("Retry-After=\"" + (behaviour == Behaviour.ALWAYS_ZERO ? "0" : "3600") + "\""),
                    () -> "each refusal is explained in the log\n" + run);
            assertFalse(run.jvm.stderr.contains("ungoverned"), () -> "HttpAsyncClient 4.1 is governed: no warning\n" + run);
            assertFalse(run.jvm.stderr.contains("internal failure"), run::toString);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_8", "JAVA_17"})
    void switchedOffTheSameRequestsAsWithoutTheAgent(Jdk jdk) throws Exception {
        ScraperRun without;
        long requestsWithout;
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 60_000))) {
            without = ScraperRun.runAsGiven(onClasspath(new ChildJvm(jdk)), null, FETCHER, portal.baseUrl(), 12);
            requestsWithout = portal.stats().requests;
            assertTrue(without.refused > 0, () -> "refusals reach the application\n" + without);
        }
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 60_000))) {
            ScraperRun off = ScraperRun.runAsGiven(onClasspath(new ChildJvm(jdk)), POLICY + "enabled = false\n", FETCHER,
                    portal.baseUrl(), 12);
            assertEquals(requestsWithout, portal.stats().requests, () -> "the same requests as with no agent at all\n" + off);
            assertEquals(without.fetched, off.fetched);
            assertEquals(without.refused, off.refused);
            assertTrue(off.jvm.stderr.contains("off (enabled=false"), () -> "says it is off\n" + off);
        }
    }
}
