package dev.retryafter.it;

import dev.retryafter.agent.config.ConfigException;
import dev.retryafter.agent.config.PolicyFile;
import dev.retryafter.agent.engine.Policy;
import dev.retryafter.demo.Demo;
import dev.retryafter.demo.DemoOptions;
import dev.retryafter.demo.DemoRun;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Inconclusive;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.MinSleepFloor;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.File;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The demo, as its command runs it, for each client: with the agent every portal yields all its
 * records, no refusal is followed sooner than min-sleep, no sleep exceeds max-sleep; without it,
 * records are lost. Asserted from the portals' own counts and the agent's reports.
 */
class DemoTest {

    /** The demo's own policy file, and the floor and ceiling it sets. */
    private static final Path POLICIES = Paths.get("../demo-app/policies.properties");
    private static final Policy DEMO_POLICY = demoPolicy();
    private static final long MIN_SLEEP = DEMO_POLICY.minSleepMillis();
    private static final long MAX_SLEEP = DEMO_POLICY.maxSleepMillis();

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jdk", "jdk-async", "apache5", "apache4", "urlconnection", "okhttp", "apache5-async", "apache4-async", "jetty"})
    void withTheAgentEveryPortalYieldsAllItsRecords(String client) throws Exception {
        assertEveryPortalYieldsAllItsRecords(client, options(client).withoutAgentToo(client.equals("jdk")));
    }

    /** {@code --java 8}: the legacy scraper as the oldest JVMs run it, Apache 4 on Java 8. */
    @Test
    void onJava8WithApache4EveryPortalYieldsAllItsRecords() throws Exception {
        Jdk.JAVA_8.javaOrSkip();
        // As `--java 8` finds it.
        assertEveryPortalYieldsAllItsRecords("apache4", options("apache4", "demo-apache4-java8").java(DemoOptions.javaOfRelease(8)));
    }

    /**
     * The clients governed since, on the demo's own class path (AsyncHttpClient 2, Vert.x 4, one Netty 4.2), as its
     * command runs them: two on Java 8, where old scrapers run them, Spring's WebClient (which needs 17) and
     * AsyncHttpClient on 17. Fewer records than above, each portal still refusing, so that the four cost less.
     */
    @ParameterizedTest(name = "{0} on Java {1}")
    @CsvSource({"commons3, 8", "asynchttpclient, 17", "vertx, 8", "spring-webclient, 17"})
    void withTheAgentEveryPortalYieldsAllItsRecordsOnTheDemosClassPath(String client, int java) throws Exception {
        Jdk.valueOf("JAVA_" + java).javaOrSkip();
        // As `--java N` finds it.
        assertEveryPortalYieldsAllItsRecords(client, DemoOptions.of(ChildJvm.agentJar(), POLICIES,
                DemoOptions.scraperClasspath(Paths.get("..")), ChildJvm.workDir().resolve("demo-" + client + "-java" + java), client)
                .records(16).java(DemoOptions.javaOfRelease(java)));
    }

    private static void assertEveryPortalYieldsAllItsRecords(String client, DemoOptions options) throws Exception {
        List<DemoRun.Row> rows = Demo.run(options);
        assertAll(rows.stream().filter(row -> row.withAgent).map(row -> () -> {
            String name = row.behaviour.label() + " with " + client + " (see " + row.log + ")";
            assertEquals(row.scraper.records, row.scraper.fetched, name + ": every record");
            // Every demo portal's limit is under the records asked for, so each refuses, and a refused thread
            // comes back for its record; a scraper a loaded machine made slower than the limit is refused by
            // none, and has no gap to measure (the run as a whole is judged below).
            if (row.portal.refusals > 0) {
                long gap = row.portal.shortestGapAfterOwnRefusalMillis;
                MinSleepFloor.assertKept(gap, MIN_SLEEP, () -> name + ": a thread came back " + gap + " ms after a refusal");
            }
            // Two threads: one may wait out its own refusal and then a sibling's, every request obeying the
            // latest refusal. Two waits, each within max-sleep, as the portal sees it; one, as the agent counts.
            assertTrue(row.portal.longestGapBetweenOwnRequestsMillis <= 2 * MAX_SLEEP + LyingHeadersTest.SLACK,
                    name + ": a thread waited " + row.portal.longestGapBetweenOwnRequestsMillis + " ms, as the portal saw it");
            assertTrue(row.agent.number("longestSleepMillis") <= MAX_SLEEP, name + ": " + row.agent);
        }));
        Inconclusive.unlessRefused(rows.stream().filter(row -> row.withAgent).mapToLong(row -> row.portal.refusals).sum(),
                () -> client + ": no portal refused: the machine was slower than every limit");
        if (client.equals("jdk")) {
            long lostWithout = rows.stream().filter(row -> !row.withAgent)
                    .mapToLong(row -> row.scraper.records - row.scraper.fetched).sum();
            assertTrue(lostWithout > 0, "without the agent the same scraper loses records to the same portals");
        }
    }

    private static Policy demoPolicy() {
        try {
            return PolicyFile.read(POLICIES, List.of()).policies().defaults();
        } catch (ConfigException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private static DemoOptions options(String client) throws Exception {
        return options(client, "demo-" + client);
    }

    private static DemoOptions options(String client, String workDir) throws Exception {
        String classpath = String.join(File.pathSeparator, TestClasspath.entries(TestClasspath.DEMO));
        // Half the demo's records: every portal still refuses, in fewer seconds.
        return DemoOptions.of(ChildJvm.agentJar(), POLICIES, classpath, ChildJvm.workDir().resolve(workDir), client)
                .records(30);
    }
}
