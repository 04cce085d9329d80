package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Clients;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.MinSleepFloor;
import dev.retryafter.it.harness.ScraperRun;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.regex.Pattern;

import static dev.retryafter.it.LyingHeadersTest.POLICY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent switched off leaves the application exactly as it was; handed a broken or missing policy
 * file, it governs on its built-in defaults rather than unleash the scraper (or stays off, when the
 * file says {@code on-bad-policy = off}). The start-up paths on every JDK; the switches on three.
 */
@Execution(ExecutionMode.CONCURRENT)
class ToggleAndFailureTest {

    private static final int RECORDS = 12;

    /** What the scraper does with no agent: refusals reach it, and nothing is retried. */
    private static void assertUnchanged(ScraperRun run, PortalServer portal) {
        assertEquals(0, run.jvm.exitCode, () -> run.toString());
        assertTrue(run.refused > 0, () -> "refusals reach the application\n" + run);
        assertEquals(RECORDS, run.fetched + run.refused, () -> run.toString());
        assertEquals(RECORDS, portal.stats().requests, "one request per record: nothing retried");
    }

    /** What the scraper does with the agent on its defaults: every record fetched, no request sooner than min-sleep after a refusal. */
    private static void assertGovernedOnDefaults(ScraperRun run, PortalServer portal) {
        assertEquals(0, run.jvm.exitCode, () -> run.toString());
        assertEquals(RECORDS, run.fetched, () -> "every record, the refusals retried\n" + run);
        assertTrue(portal.stats().refusals > 0, () -> "the portal refused, so the agent had something to govern\n" + run);
        MinSleepFloor.assertKept(portal.stats().shortestGapAfterOwnRefusalMillis, 1_000, () -> run.toString());
        assertTrue(run.jvm.stderr.contains("the agent governs every host on its built-in defaults"), () -> run.toString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.retryafter.it.harness.Jdk#spread") // configuration, the same on every JVM
    void enabledFalseLeavesApache5sOwnRetriesAsTheyWere(Jdk jdk) throws Exception {
        long withoutAgent;
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 10, 60_000))) {
            ScraperRun without = ScraperRun.run(jdk, null, "apache5", portal.baseUrl(), RECORDS);
            assertEquals(10, without.fetched, () -> without.toString());
            withoutAgent = portal.stats().requests;
            assertTrue(withoutAgent > RECORDS, "Apache 5's default strategy retried the refusals itself");
        }
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 10, 60_000))) {
            ScraperRun off = ScraperRun.run(jdk, POLICY + "enabled = false\n", "apache5", portal.baseUrl(), RECORDS);
            assertEquals(10, off.fetched, () -> off.toString());
            assertEquals(withoutAgent, portal.stats().requests, "the same requests as with no agent at all");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.retryafter.it.harness.Jdk#spread") // configuration, the same on every JVM
    void enabledFalseBehavesLikeNoAgent(Jdk jdk) throws Exception {
        ScraperRun without;
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 60_000))) {
            without = ScraperRun.run(jdk, null, Clients.plainOn(jdk), portal.baseUrl(), RECORDS);
            assertUnchanged(without, portal);
        }
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 60_000))) {
            ScraperRun off = ScraperRun.run(jdk, POLICY + "enabled = false\n", Clients.plainOn(jdk), portal.baseUrl(), RECORDS);
            assertUnchanged(off, portal);
            assertEquals(without.fetched, off.fetched);
            assertEquals(without.refused, off.refused);
            assertTrue(off.jvm.stderr.contains("off (enabled=false"), () -> "says it is off\n" + off);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.retryafter.it.harness.Jdk#spread") // configuration, the same on every JVM
    void theEnvironmentSwitchesItOffWhateverTheFileSays(Jdk jdk) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 60_000))) {
            ChildJvm jvm = new ChildJvm(jdk).env("RETRY_AFTER_AGENT_ENABLED", "false");
            ScraperRun off = ScraperRun.run(jvm, POLICY + "enabled = true\n", Clients.plainOn(jdk), portal.baseUrl(), RECORDS);
            assertUnchanged(off, portal);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Jdk.class)
    void aBrokenPolicyFileNamesFileLineAndKeyAndTheDefaultsGovern(Jdk jdk) throws Exception {
        String broken = "# a deployment's policies\n"
                + "default.min-sleep = 300ms\n"
                + "default.max-sleeep = 3s\n";
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 2_000))) {
            ScraperRun run = ScraperRun.run(jdk, broken, Clients.plainOn(jdk), portal.baseUrl(), RECORDS);
            assertTrue(Pattern.compile("policies-\\d+\\.properties:3: default\\.max-sleeep: unknown key; did you mean default\\.max-sleep\\?")
                    .matcher(run.jvm.stderr).find(), () -> "the error names file, line and key\n" + run);
            assertGovernedOnDefaults(run, portal);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.retryafter.it.harness.Jdk#spread") // configuration, the same on every JVM
    void onBadPolicyOffKeepsTheAgentOffAsBefore(Jdk jdk) throws Exception {
        String broken = "on-bad-policy = off   # a deployment that prefers no agent to a guessed one\n"
                + "default.max-sleeep = 3s\n";
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 60_000))) {
            ScraperRun run = ScraperRun.run(jdk, broken, Clients.plainOn(jdk), portal.baseUrl(), RECORDS);
            assertUnchanged(run, portal);
            assertTrue(run.jvm.stderr.contains("the agent is off (on-bad-policy = off)"), () -> run.toString());
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Jdk.class)
    void aPolicyFileThatIsMissingLeavesTheDefaultsGoverning(Jdk jdk) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 2_000))) {
            ChildJvm jvm = new ChildJvm(jdk).withAgent("/no/such/policies.properties");
            ScraperRun run = ScraperRun.run(jvm, null, "apache4", portal.baseUrl(), RECORDS);
            assertTrue(run.jvm.stderr.contains("/no/such/policies.properties: cannot be read"), () -> run.toString());
            assertFalse(run.jvm.stderr.contains("Exception in thread"), () -> run.toString());
            assertGovernedOnDefaults(run, portal);
        }
    }
}
