package dev.retryafter.it.attached;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Tests in this package run in surefire's agent-attached execution, where the test JVM carries the agent. */
final class Hooks {

    private Hooks() {
    }

    /**
     * Skips outside the agent-attached execution (a {@code -Dtest=} filter runs these classes in the
     * plain one too); inside it, a missing agent is a failure, never a skip.
     */
    static void requireAgent() {
        assumeTrue(Boolean.getBoolean("agent.attached"), "runs in surefire's agent-attached execution");
        assertTrue(areInstalled(), "the agent-attached execution has no agent: see argLine in integration-tests/pom.xml");
    }

    private static boolean areInstalled() {
        try {
            Class.forName("dev.retryafter.agent.bootstrap.AgentHooks", false, null);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
