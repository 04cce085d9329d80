package dev.retryafter.agent.metrics;

import dev.retryafter.agent.config.Policies;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.DecisionListener;
import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.testing.VirtualClock;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class RefusalsByStatusTest {

    /** It stands between the engine and the decision log: a listener method it does not pass on would silence its log line. */
    @Test
    void everyListenerMethodIsPassedOn() throws Exception {
        for (Method method : DecisionListener.class.getMethods()) {
            if (Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            Method own = RefusalsByStatus.class.getMethod(method.getName(), method.getParameterTypes());
            assertEquals(RefusalsByStatus.class, own.getDeclaringClass(),
                    method.getName() + " is not passed on to the decision log: override it in RefusalsByStatus");
        }
    }

    /** A host first refused after a scrape read the tracked hosts keeps its count; a host the engine dropped loses it. */
    @Test
    void onlyWhatTheEngineNoLongerTracksIsDropped() throws Exception {
        VirtualClock clock = new VirtualClock();
        RefusalsByStatus refusals = new RefusalsByStatus(DecisionListener.NoOp.INSTANCE);
        RetryEngine engine = RetryEngine.builder().clock(clock).sleeper(clock).listener(refusals)
                .policies(Policies.defaultsOnly(Policy.DEFAULTS)).build();
        Set<HostState> readBefore = Collections.newSetFromMap(new IdentityHashMap<HostState, Boolean>());

        Call call = engine.open("portal.example", 443, true);
        call.awaitTurn();
        call.onResponse(429, "0");
        call.endAttempt();
        call.awaitTurn();
        call.onResponse(200, null);
        call.endAttempt();
        HostState portal = engine.host("portal.example:443");

        refusals.dropGone(readBefore, engine);
        assertArrayEquals(new long[][] {{429, 1}}, refusals.of(portal), "made after the read, and tracked: kept");

        engine.forget("portal.example:443");
        refusals.dropGone(readBefore, engine);
        assertEquals(0, refusals.of(portal).length, "forgotten: dropped");
    }
}
