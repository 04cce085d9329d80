package dev.retryafter.it;

import dev.retryafter.demo.AgentReport;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Jetty 12 follows a redirect itself: its follow-up is a request of its own, sent in the application's conversation,
 * that the agent governs as a call of its own, and retries after a refusal in copies of its own. Under a cap of one, a
 * permit any of them kept would stop every later request to the host for ever; and each exchange is told to the
 * engine once, as what it was (the 302 for the request, the follow-up's own responses for the follow-up).
 */
class JettyRedirectTest {

    private static final int REQUESTS = 12;
    private static final String POLICY = "default.min-sleep = 100ms\n"
            + "default.max-sleep = 1s\n"
            + "default.max-attempts = 3\n"
            + "default.max-concurrency = 1\n";

    /** One after another: each request's redirect, then its follow-up refused once, then let through. */
    @Test
    void redirectedRequestsUnderACapOfOneAllCompleteAndKeepNoPermit() throws Exception {
        try (ScriptedServer portal = new ScriptedServer(n -> n % 3 == 0 ? Reply.redirect("/moved") : n % 3 == 1 ? Reply.refused("0") : Reply.ok())) {
            Run run = new Run(portal, REQUESTS);

            assertTrue(run.result.stdout.contains("OK " + REQUESTS), () -> "every redirected request completed\n" + run);
            assertEquals(3 * REQUESTS, portal.requests(), () -> "each request, its follow-up and the follow-up's retry, once\n" + run);
            assertTrue(run.result.stdout.contains("IN-FLIGHT 0"), () -> "no permit kept once all were done\n" + run);
            assertEquals(3 * REQUESTS, (long) run.host.number("requests"), () -> "the report counts each exchange once: " + run);
            assertEquals(REQUESTS, (long) run.host.number("refusals"), () -> "and each refusal once: " + run);
        }
    }

    /**
     * A follow-up refused to the end (max-attempts 3): its last refusal reaches the application, and the engine was told
     * each refusal once, by the follow-up's call; the request it follows was answered by its redirect, not again by the
     * final response.
     */
    @Test
    void aRefusedFollowUpIsToldOnceByItsOwnCall() throws Exception {
        int requests = 4;
        // One after another: each request's redirect, then its follow-up's three attempts, all refused.
        try (ScriptedServer portal = new ScriptedServer(n -> n % 4 == 0 ? Reply.redirect("/moved") : Reply.refused("0"))) {
            Run run = new Run(portal, requests);

            assertTrue(run.result.stdout.contains("OK 0"), () -> "every request ended, refused\n" + run);
            assertEquals(4 * requests, portal.requests(), () -> "a redirect and three attempts of each follow-up\n" + run);
            assertEquals(3 * requests, (long) run.host.number("refusals"),
                    () -> "the report counts each refusal the portal sent once: " + run);
            assertEquals(2 * requests, (long) run.host.number("retries"), () -> "two retries of each follow-up: " + run);
        }
    }

    /** The application's run against {@code portal}, the agent attached, and the agent's report of the portal's host. */
    private static final class Run {
        final ChildJvm.Result result;
        final AgentReport.Host host;

        Run(ScriptedServer portal, int requests) throws Exception {
            Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
            Files.writeString(policy, POLICY);
            Path report = Files.createTempFile(ChildJvm.workDir(), "report-", ".json");
            Files.delete(report);
            result = new ChildJvm(Jdk.JAVA_17).classpath(TestClasspath.DEMO).classpathEntry(TestClasspath.testClasses())
                    .withAgent("config=" + policy + ",report=" + report).timeout(Duration.ofSeconds(240))
                    .main("dev.retryafter.it.apps.JettyRedirectApp", portal.url("/records"), Integer.toString(requests)).run();
            host = AgentReport.read(report).host("127.0.0.1:" + portal.port());
        }

        @Override
        public String toString() {
            return host + "\n" + result;
        }
    }
}
