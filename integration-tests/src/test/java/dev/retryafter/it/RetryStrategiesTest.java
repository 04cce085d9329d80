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
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static dev.retryafter.it.LyingHeadersTest.MAX_SLEEP;
import static dev.retryafter.it.LyingHeadersTest.MIN_SLEEP;
import static dev.retryafter.it.LyingHeadersTest.POLICY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Retries that someone else makes, beneath the agent's loop: Apache 5's default strategy, which
 * honours Retry-After with no ceiling, and an Apache 4 application's own strategy that honours it
 * literally (as Maven's resolver does). With the agent attached they obey the engine too.
 */
@Execution(ExecutionMode.CONCURRENT)
class RetryStrategiesTest {

    static Stream<Arguments> strategiesAndLies() {
        // The strategies are Apache's, the same on every JVM: the oldest, the build's and the newest.
        return Jdk.spread().stream().flatMap(jdk -> Stream.of(
                Arguments.of(jdk, "apache4-literal", Behaviour.ALWAYS_ZERO),
                Arguments.of(jdk, "apache4-literal", Behaviour.CONSTANT_OVERSTATED),
                Arguments.of(jdk, "apache5-default", Behaviour.ALWAYS_ZERO),
                Arguments.of(jdk, "apache5-default", Behaviour.CONSTANT_OVERSTATED)));
    }

    @ParameterizedTest(name = "{1} against {2} on {0}")
    @MethodSource("strategiesAndLies")
    void anApplicationsOwnRetryStrategyGetsTheSameGuarantees(Jdk jdk, String client, Behaviour lie) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(lie, 5, 1_000))) {
            ScraperRun run = ScraperRun.run(jdk, POLICY, client, portal.baseUrl(), 20);
            PortalStats stats = portal.stats();
            AgentReport.Host host = run.report().host("127.0.0.1:" + portal.port());

            assertEquals(20, run.fetched, () -> "every record arrives\n" + run);
            Inconclusive.unlessRefused(stats.refusals, () -> stats + "\n" + run); // so this test could fail
            MinSleepFloor.assertKept(stats.shortestGapAfterAnyRefusalMillis, MIN_SLEEP, () -> stats + "\n" + run);
            assertTrue(stats.longestGapBetweenOwnRequestsMillis <= MAX_SLEEP + LyingHeadersTest.SLACK,
                    () -> "never waited past max-sleep, as the portal saw it: " + stats + "\n" + run);
            assertTrue(host.number("refusals") > 0, () -> host.toString());
            assertTrue(host.number("longestSleepMillis") <= MAX_SLEEP, () -> "the agent never slept past max-sleep: " + host);
            assertTrue(run.elapsedMillis < 120_000, () -> "no hour's stall: " + run.elapsedMillis + " ms");
        }
    }

    /** Apache 5's built-in retry doubled the attempts under an agent that ignored it (8 hits for 4). */
    @ParameterizedTest(name = "{0}")
    @EnumSource(ClientName.class)
    void attemptsAreNotMultipliedByAStrategyBeneath(ClientName client) throws Exception {
        // One request a minute: the first is let through, every later one refused for the rest of the test. Its header
        // says 0: a truthful one would name the same moment beyond max-sleep twice, and the host would be held.
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 1, 60_000))) {
            String policy = "default.min-sleep = 100ms\ndefault.max-sleep = 200ms\ndefault.max-attempts = 4\n";
            ScraperRun run = ScraperRun.run(Jdk.JAVA_17, policy, client.label, portal.baseUrl(), 2);

            assertEquals(1, run.fetched, () -> run.toString());
            assertEquals(1, run.refused, () -> "after max-attempts the last refusal goes back unchanged\n" + run);
            assertEquals(1 + 4, portal.stats().requests, () -> "one admitted, then exactly four attempts\n" + run);
        }
    }

    /** The scraper's client names, as an enum so each is a test of its own. */
    enum ClientName {
        APACHE5_DEFAULT("apache5-default"), APACHE5("apache5"), APACHE4_LITERAL("apache4-literal"), APACHE4("apache4"),
        APACHE4_LEGACY("apache4-legacy"), JDK("jdk"), JDK_ASYNC("jdk-async");

        final String label;

        ClientName(String label) {
            this.label = label;
        }

        @Override
        public String toString() {
            return label;
        }
    }
}
