package dev.retryafter.agent.instrument;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.CharacterisationChange;
import dev.retryafter.agent.engine.Decision;
import dev.retryafter.agent.engine.DecisionListener;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.engine.PolicyLookup;
import dev.retryafter.agent.engine.RetryEngine;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** An Error of the agent's own inside a step of the Apache loop: the response goes back as the client got it, nothing stays held. */
class BlockingRetryLoopTest {

    @Test
    void anErrorWhileDecidingHandsTheResponseBackAndReleasesThePermit() throws Exception {
        DecisionListener overflowing = new DecisionListener() {
            @Override
            public void onRefusal(HostState host, Decision decision) {
                throw new StackOverflowError("inside the agent");
            }

            @Override
            public void onRecharacterised(HostState host, CharacterisationChange change) {
            }

            @Override
            public void onHeldRequest(HostState host, HostHeldException failure) {
            }
        };
        RetryEngine engine = RetryEngine.builder().listener(overflowing)
                .policies(PolicyLookup.everyHost(Policy.builder().maxConcurrency(1).build())).build();
        CallDepth depth = new CallDepth();
        BlockingRetryLoop loop = new BlockingRetryLoop(engine, depth, new ConnectionLeases());

        Call call = loop.begin("https", "portal.example", 443, true);
        assertNotNull(call);
        assertFalse(loop.shouldRetry(call, 429, "0"), "the refusal goes back to the application, as without the agent");
        assertFalse(depth.isInside(), "the thread is no longer inside the call");
        engine.open("portal.example", 443, true).turn().get(5, TimeUnit.SECONDS); // the permit came back
    }
}
