package dev.retryafter.it;

import dev.retryafter.demo.AgentReport;
import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.demo.portal.PortalStats;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScraperRun;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Asserts that in observe mode the portal receives exactly what it receives without the agent (the
 * same requests, none held back) while the log says each decision the agent would have taken and
 * the report what enforce mode would have done. Apache 5's default strategy retries refusals by
 * itself: observe mode leaves that retry to it, as without the agent.
 */
@Execution(ExecutionMode.CONCURRENT)
class ObserveModeTest {

    private static final int RECORDS = 20;
    /** Admitted before every later request is refused, for the rest of the run: the same refusals whatever the speed. */
    private static final int ADMITTED = 5;
    /** What enforce mode would wait after each refusal: far longer than any gap a run without the agent has. */
    private static final long MIN_SLEEP = 10_000;
    /** What a loaded machine may add to a gap (the agent's first use costs a few seconds on two busy cores); well under {@link #MIN_SLEEP}. */
    private static final long NOISE = 5_000;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jdk", "apache5-default"})
    void observeModeLeavesTheTrafficAsWithoutTheAgent(String client) throws Exception {
        PortalStats without = scrape(client, null).stats;
        Scrape observed = scrape(client, "mode = observe\ndefault.min-sleep = " + MIN_SLEEP + "ms\n");
        PortalStats with = observed.stats;
        ScraperRun run = observed.run;

        assertTrue(without.refusals > 0, () -> "the portal refused, so this test could fail: " + without);
        assertEquals(without.requests, with.requests, () -> "the same requests: " + without + " vs " + with + "\n" + run);
        assertEquals(without.refusals, with.refusals, () -> without + " vs " + with);
        assertEquals(without.refusals > 0 ? RECORDS - ADMITTED : 0, run.refused, () -> "every refusal went back to the scraper\n" + run);
        assertTrue(with.longestGapBetweenOwnRequestsMillis <= without.longestGapBetweenOwnRequestsMillis + NOISE,
                () -> "no request was held back: " + without + " vs " + with + "\n" + run);
        assertTrue(run.elapsedMillis < (RECORDS - ADMITTED) * MIN_SLEEP, () -> "enforce mode would have taken this long at least\n" + run);

        // Each kind of would-be decision is said once; the report counts every one (wouldRetry below).
        List<String> would = run.jvm.agentLines().stream().filter(l -> l.contains("-> would retry in ")).collect(Collectors.toList());
        assertTrue(!would.isEmpty() && would.size() < RECORDS - ADMITTED, () -> "a line per kind of decision, not per refusal\n" + run);
        assertTrue(would.get(0).endsWith("(observe mode: not done)"), would.get(0));
        assertTrue(run.jvm.agentLines().stream().anyMatch(l -> l.contains("request -> would wait") && l.contains("(observe mode: sent now)")),
                () -> "the delay enforce mode would have imposed is said\n" + run);

        AgentReport.Host host = run.report().host("127.0.0.1:" + observed.port);
        assertEquals(0, host.number("retries"), host::toString);
        assertEquals(RECORDS - ADMITTED, host.number("wouldRetry"), host::toString);
        assertTrue(host.number("wouldRetryWaitMillis") >= (RECORDS - ADMITTED) * MIN_SLEEP, host::toString);
        assertTrue(host.number("wouldDelayRequests") >= RECORDS - ADMITTED - 1, host::toString);
        assertTrue(host.number("wouldDelayMillis") > 0, host::toString);
        assertEquals(0, host.number("sleptMillis"), host::toString);
    }

    /** OkHttp sends a 503 with Retry-After: 0 once more by itself; enforce mode takes that retry over, observe mode leaves it to OkHttp. */
    @org.junit.jupiter.api.Test
    void okHttpsOwnRetryOfA503IsLeftToIt() throws Exception {
        List<String> log = new java.util.ArrayList<>();
        int without = okhttpRequests(null, log);
        int observed = okhttpRequests("mode = observe\ndefault.min-sleep = 100ms\ndefault.max-sleep = 200ms\n", log);
        assertEquals(2 * 4, without, "OkHttp itself sends each 503 twice");
        assertEquals(without, observed, () -> "the same requests in observe mode\n" + log);
        assertEquals(4, log.stream().filter(l -> l.contains(" 503 attempt 1/5 Retry-After=\"0\" -> would retry in ")).count(),
                () -> "the agent saw each record's last 503 and said what it would do\n" + log);
    }

    private static int okhttpRequests(String policy, List<String> log) throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> new ScriptedServer.Reply(503, "0", 16))) {
            // At debug, observe mode says every would-be decision, not only the first of each kind.
            ScraperRun run = ScraperRun.run(new ChildJvm(Jdk.JAVA_17).jvmArg("-Dretry-after-agent.log-level=debug"), policy, "okhttp",
                    server.url(""), 4);
            assertEquals(4, run.refused, run::toString);
            log.addAll(run.jvm.agentLines());
            return server.requests();
        }
    }

    private static final class Scrape {
        final PortalStats stats;
        final ScraperRun run;
        final int port;

        Scrape(PortalStats stats, ScraperRun run, int port) {
            this.stats = stats;
            this.run = run;
            this.port = port;
        }
    }

    private static Scrape scrape(String client, String policy) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, ADMITTED, 600_000))) {
            ScraperRun run = ScraperRun.run(Jdk.JAVA_17, policy, client, portal.baseUrl(), RECORDS);
            return new Scrape(portal.stats(), run, portal.port());
        }
    }
}
