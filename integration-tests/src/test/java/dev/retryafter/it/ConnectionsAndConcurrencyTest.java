package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.demo.portal.PortalStats;
import dev.retryafter.it.harness.Inconclusive;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.ScraperRun;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;


import static dev.retryafter.it.LyingHeadersTest.POLICY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Pooled connections survive refusals, and the per-host concurrency cap holds, counted at the server. */
@Execution(ExecutionMode.CONCURRENT)
class ConnectionsAndConcurrencyTest {

    /** A refused response is consumed and closed before the wait: a pool of one must not deadlock. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"apache5", "apache4", "apache4-literal"})
    void aConnectionPoolOfOneSurvivesARunOfRefusals(String client) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 1_000))) {
            ScraperRun run = ScraperRun.run(Jdk.JAVA_17, POLICY, client, portal.baseUrl(), 16,
                    "--pool", "1", "--threads", "3", "--timeout", "5");
            Inconclusive.unlessRefused(portal.stats().refusals, () -> portal.stats() + "\n" + run); // so this test could fail
            assertEquals(16, run.fetched, () -> "no request timed out waiting for the pool\n" + run);
            assertEquals(0, run.failed, () -> run.toString());
        }
    }


    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("dev.retryafter.it.harness.Clients#onEveryJdk")
    void thePerHostConcurrencyCapHoldsAtTheServer(Jdk jdk, String client) throws Exception {
        int cap = 2;
        // A slow portal that never refuses: eight threads would have eight requests in flight.
        try (PortalServer capped = new PortalServer(new PortalModel(Behaviour.TRUTHFUL, 100_000, 1_000), 40, 64)) {
            ScraperRun run = ScraperRun.run(jdk, POLICY + "default.max-concurrency = " + cap + "\n", client, capped.baseUrl(), 48,
                    "--threads", "8");
            PortalStats stats = capped.stats();
            assertEquals(48, run.fetched, () -> run.toString());
            assertTrue(stats.peakInFlight <= cap, () -> "peak " + stats.peakInFlight + " over the cap " + cap + "\n" + run);
            assertEquals(cap, stats.peakInFlight, "the cap was reached, so this test could fail");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jdk", "apache5"})
    void withoutTheAgentTheSameScraperExceedsTheCap(String client) throws Exception {
        try (PortalServer uncapped = new PortalServer(new PortalModel(Behaviour.TRUTHFUL, 100_000, 1_000), 40, 64)) {
            ScraperRun run = ScraperRun.run(Jdk.JAVA_17, null, client, uncapped.baseUrl(), 48, "--threads", "8");
            assertEquals(48, run.fetched);
            assertTrue(uncapped.stats().peakInFlight > 2, "the control run shows what the cap prevents: " + uncapped.stats());
        }
    }
}
