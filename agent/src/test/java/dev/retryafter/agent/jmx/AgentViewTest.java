package dev.retryafter.agent.jmx;

import dev.retryafter.agent.GoverningSwitch;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.Mode;
import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.engine.PolicyLookup;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.testing.VirtualClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The operator's hold, as the command line and JMX reach it: what it answers, and what it refuses. */
class AgentViewTest {

    private static AgentView viewOf(RetryEngine engine) throws Exception {
        Call call = engine.open("portal.example", 443, true);
        call.awaitTurn();
        call.onResponse(200, null);
        call.endAttempt();
        return new AgentView(engine, new GoverningSwitch(), "test", "defaults", 0, AgentLog.logger(), null);
    }

    @Test
    void aHoldIsForAWhileAndSaysSo() throws Exception {
        VirtualClock clock = new VirtualClock();
        AgentView view = viewOf(RetryEngine.builder().clock(clock).sleeper(clock).policies(PolicyLookup.everyHost(Policy.DEFAULTS)).build());
        Outcome held = view.holdHost("portal.example", "10m", AgentView.FROM_COMMAND_LINE);
        assertTrue(held.done, held.line);
        assertTrue(held.line.startsWith("portal.example:443 held until ") && held.line.contains(": its requests fail fast until then"), held.line);
        for (String wrong : new String[] {"2d", "25h", "500ms", ""}) {
            Outcome refused = view.holdHost("portal.example:443", wrong, AgentView.FROM_COMMAND_LINE);
            assertFalse(refused.done, refused.line);
            assertTrue(refused.line.endsWith("nothing changed"), refused.line);
        }
        Outcome elsewhere = view.holdHost("elsewhere.example:443", "10m", AgentView.FROM_COMMAND_LINE);
        assertFalse(elsewhere.done);
        assertTrue(elsewhere.line.startsWith("elsewhere.example:443 is not tracked (tracked: portal.example:443)"), elsewhere.line);
    }

    @Test
    void inObserveModeAHoldSaysItsRequestsAreStillSent() throws Exception {
        VirtualClock clock = new VirtualClock();
        AgentView view = viewOf(RetryEngine.builder().clock(clock).sleeper(clock).mode(Mode.OBSERVE)
                .policies(PolicyLookup.everyHost(Policy.DEFAULTS)).build());
        Outcome held = view.holdHost("portal.example:443", "1h", AgentView.FROM_COMMAND_LINE);
        assertTrue(held.done, held.line);
        assertTrue(held.line.contains("observed, its requests are still sent"), held.line);
    }
}
