package dev.retryafter.it.attached;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Tests in this package run in a JVM that carries the agent: {@code AttachedClientSuiteTest} starts it. */
final class Hooks {

    private Hooks() {
    }

    /**
     * Skips in a JVM not started to carry the agent (a {@code -Dtest=} filter runs these classes in
     * the plain test JVM too); in one that was, a missing agent is a failure, never a skip.
     */
    static void requireAgent() {
        assumeTrue(Boolean.getBoolean("agent.attached"), "runs in the JVM AttachedClientSuiteTest starts");
        assertTrue(areInstalled(), "the JVM started to carry the agent has none: see AttachedClientSuiteTest");
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
