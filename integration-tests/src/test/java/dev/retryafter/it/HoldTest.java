package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.demo.AgentReport;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.ScraperRun;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A truthful host whose real wait is beyond max-sleep is held: the request whose refusal confirmed
 * it, and every later one, fail fast with an IOException that names the hold's end, without
 * touching the network again.
 */
@Execution(ExecutionMode.CONCURRENT)
class HoldTest {


    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("dev.retryafter.it.harness.Clients#onePerAdapterOnEveryJdk")
    void aConfirmedWaitBeyondMaxSleepHoldsTheHost(Jdk jdk, String client) throws Exception {
        // Two requests per 30 s, and a truthful header: the third request is told to wait ~30 s.
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.TRUTHFUL, 2, 30_000))) {
            String policy = "default.category = truthful\ndefault.max-sleep = 3500ms\ndefault.min-sleep = 200ms\n";
            ScraperRun run = ScraperRun.run(jdk, policy, client, portal.baseUrl(), 6);
            AgentReport.Host host = run.report().host("127.0.0.1:" + portal.port());

            assertEquals(2, run.fetched, () -> run.toString());
            // The request in hand fails with the hold like the rest, on every client: HttpURLConnection's getResponseCode()
            // too, whose refusal's headers the agent empties before the resend, as the JDK does for a redirect.
            assertEquals(0, run.refused, () -> "no bare refusal reaches the application\n" + run);
            assertEquals(4, run.failed, () -> "it and the later requests fail fast\n" + run);
            assertTrue(run.firstFailure().contains("is held until") && run.firstFailure().contains("127.0.0.1:" + portal.port()),
                    () -> "the failure names the host and the end of the hold: " + run.firstFailure());
            assertEquals(2 + 2, portal.stats().requests, "held requests never reach the network");
            assertEquals(1, (long) host.number("holds"));
            assertEquals(4, (long) host.number("heldRequests"));
            // No 30 s sleep, counted by the agent rather than timed: at a load average of 70 on two cores
            // these six requests took 27 s of wall time with no sleep at all.
            assertTrue(host.number("longestSleepMillis") <= 3_500, () -> "no sleep past max-sleep: " + host);
            assertTrue(host.number("sleptMillis") < 30_000, () -> "no 30 s sleep: " + host);
        }
    }
}
