package dev.retryafter.agent.engine;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Asserts that new policies apply to each host's next requests, keep what was learned, and change caps without a leak. */
class PolicyReloadTest {

    private static RetryEngine engine(Policy policy) {
        return RetryEngine.builder().policies(PolicyLookup.everyHost(policy)).build();
    }

    @Test
    void aLowerCapAppliesToNewAcquisitionsWhilePermitsAreHeld() throws Exception {
        RetryEngine engine = engine(Policy.builder().maxConcurrency(2).build());
        Call a = engine.open("portal.example", 443, true);
        Call b = engine.open("portal.example", 443, true);
        a.awaitTurn();
        b.awaitTurn();
        engine.usePolicies(PolicyLookup.everyHost(Policy.builder().name("slow").maxConcurrency(1).build()));
        Call c = engine.open("portal.example", 443, true);
        CompletableFuture<Void> third = c.turn();
        a.endAttempt();
        assertFalse(third.isDone(), "one still in flight is the new cap: the third waits");
        b.endAttempt();
        third.get(10, TimeUnit.SECONDS);
        c.endAttempt();
        assertEquals(0, c.host().permits().inUse(), "every permit came back");
        assertEquals("slow", c.host().policy().name());
    }

    @Test
    void aHigherCapLetsWaitersInAtOnce() throws Exception {
        RetryEngine engine = engine(Policy.builder().maxConcurrency(1).build());
        Call a = engine.open("portal.example", 443, true);
        Call b = engine.open("portal.example", 443, true);
        a.awaitTurn();
        CompletableFuture<Void> second = b.turn();
        assertFalse(second.isDone());
        engine.usePolicies(PolicyLookup.everyHost(Policy.builder().maxConcurrency(2).build()));
        second.get(10, TimeUnit.SECONDS);
        a.endAttempt();
        b.endAttempt();
        assertEquals(0, a.host().permits().inUse());
    }

    @Test
    void whatWasLearnedSurvivesAReload() throws Exception {
        RetryEngine engine = engine(Policy.DEFAULTS);
        Call call = engine.open("portal.example", 443, false);
        call.awaitTurn();
        call.onResponse(429, "30");
        call.endAttempt();
        HostState before = call.host();
        long notBefore = before.knowledge().notBeforeMillis;
        engine.usePolicies(PolicyLookup.everyHost(Policy.builder().name("new").maxAttempts(2).build()));
        HostState after = engine.hosts().iterator().next();
        assertTrue(after == before, "the same host state, with its counters");
        assertEquals(notBefore, after.knowledge().notBeforeMillis);
        assertEquals(1, after.snapshot(engine.now()).refusals);
        assertEquals(2, after.policy().maxAttempts());
        assertEquals("new", after.snapshot(engine.now()).policy);
    }
}
