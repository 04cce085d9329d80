package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.demo.portal.PortalStats;
import dev.retryafter.demo.AgentReport;
import dev.retryafter.it.harness.Inconclusive;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.MinSleepFloor;
import dev.retryafter.it.harness.ScraperRun;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A scraper with no retry logic, the agent attached, against portals whose Retry-After lies in the
 * two ways that do real damage: 0 (a hot loop) and 3600 on a one-second window (an hour's stall).
 * Every client, on Java 17 and 25; asserted from the portal's own counts and the agent's report.
 */
@Execution(ExecutionMode.CONCURRENT)
class LyingHeadersTest {

    static final long MIN_SLEEP = 300;
    static final long MAX_SLEEP = 1_500;
    /**
     * How far a gap the portal sees may overrun max-sleep: the time a request takes, and a busy machine's
     * scheduling (at a load average of 10 on two cores a second is not enough). The exact ceiling is the
     * agent's own count of its longest sleep; this one only rules out sleeping what the header asked.
     */
    static final long SLACK = 10_000;
    static final String POLICY = "default.min-sleep = " + MIN_SLEEP + "ms\n"
            + "default.max-sleep = " + MAX_SLEEP + "ms\n"
            + "default.window = 1s\n"
            + "default.max-attempts = 10\n";
    static final int RECORDS = 20;


    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("dev.retryafter.it.harness.Clients#onEveryJdk")
    void retryAfterZeroNeverLeadsToARequestSoonerThanMinSleep(Jdk jdk, String client) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 5, 1_000))) {
            ScraperRun run = ScraperRun.run(jdk, POLICY, client, portal.baseUrl(), RECORDS, "--api-key", "s3cr3t-key");
            PortalStats stats = portal.stats();

            assertEquals(RECORDS, run.fetched, () -> "every record arrives\n" + run);
            Inconclusive.unlessRefused(stats.refusals, () -> stats + "\n" + run); // so this test could fail
            MinSleepFloor.assertKept(stats.shortestGapAfterAnyRefusalMillis, MIN_SLEEP, () -> stats + "\n" + run);
            assertTrue(run.jvm.stderr.contains("Retry-After=\"0\""), "each refusal is explained in the log");
            assertFalse(run.jvm.stderr.contains("s3cr3t-key"), "a query string is never logged: portals put API keys there");
            assertFalse(run.jvm.stderr.contains("sun.misc.Unsafe"), () -> "no Unsafe warning on " + jdk + ":\n" + run.jvm.stderr);
        }
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("dev.retryafter.it.harness.Clients#onEveryJdk")
    void retryAfter3600OnAOneSecondWindowNeverSleepsPastMaxSleep(Jdk jdk, String client) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.CONSTANT_OVERSTATED, 5, 1_000))) {
            ScraperRun run = ScraperRun.run(jdk, POLICY, client, portal.baseUrl(), RECORDS);
            PortalStats stats = portal.stats();
            AgentReport.Host host = run.report().host("127.0.0.1:" + portal.port());

            assertEquals(RECORDS, run.fetched, () -> "every record arrives\n" + run);
            Inconclusive.unlessRefused(stats.refusals, () -> stats + "\n" + run); // so this test could fail
            assertTrue(stats.longestGapBetweenOwnRequestsMillis <= MAX_SLEEP + SLACK,
                    () -> "the scraper never waited past max-sleep, as the portal saw it: " + stats + "\n" + run);
            assertTrue(host.number("longestSleepMillis") <= MAX_SLEEP, () -> "the agent never slept past max-sleep: " + host);
            assertTrue(run.elapsedMillis < 120_000, () -> "no hour's stall: " + run.elapsedMillis + " ms\n" + run);
            assertEquals("constant_overstated", host.text("category"), () -> host.toString());
        }
    }
}
