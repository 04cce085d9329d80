package dev.retryafter.agent.bootstrap;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/** With no dispatcher (the agent never started, or a failed start rolled back), every hook means "as the client alone would". */
class AgentHooksTest {

    @Test
    void withoutADispatcherEveryHookLeavesTheClientAlone() throws Exception {
        AgentHooks.install(null);
        Object callFromBefore = new Object(); // a call that began while the agent was still on
        assertNull(AgentHooks.begin("https", "portal.example", 443, true));
        assertFalse(AgentHooks.shouldRetry(callFromBefore, 429, "0"));
        AgentHooks.awaitRetry(callFromBefore);
        AgentHooks.failed(callFromBefore);
        AgentHooks.discardRefused(null, "abort");
        AgentHooks.connectionAcquired(new Object());
        AgentHooks.connectionReleased(new Object());
    }
}
