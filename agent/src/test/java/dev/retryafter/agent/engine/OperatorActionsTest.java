package dev.retryafter.agent.engine;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What an operator can do to a running engine (the Agent MBean's operations), and what the host MBean reads. */
class OperatorActionsTest {

    private static final Policy TRUTHFUL = Policy.builder().maxSleepMillis(300_000).pinnedCategory(Category.TRUTHFUL).build();

    /** A host held until an hour from now, by two refusals naming the same moment. */
    private static EngineFixture heldHost() throws Exception {
        EngineFixture f = new EngineFixture(TRUTHFUL);
        long recoversAt = f.clock.millis() + 3_600_000;
        Call call = f.engine.open("portal.example", 443, true);
        call.awaitTurn();
        call.onResponse(429, "3600");
        call.endAttempt();
        call.awaitTurn();
        call.onResponse(429, Long.toString((recoversAt - f.clock.millis()) / 1000));
        call.endAttempt();
        assertEquals(Decision.Outcome.HOLD, call.lastDecision().outcome());
        return f;
    }

    @Test
    void releasingAHoldLetsTheNextRequestGoAtOnceAndKeepsWhatWasLearned() throws Exception {
        EngineFixture f = heldHost();
        assertTrue(f.host().snapshot(f.clock.millis()).holdUntil().isPresent());
        long slept = f.clock.totalSleptMillis();

        assertTrue(f.engine.releaseHold("Portal.Example:443"), "named as the MBean names it, in any case");
        assertFalse(f.engine.releaseHold("portal.example:443"), "not held any more");

        Call next = f.engine.open("portal.example", 443, true);
        next.awaitTurn(); // would throw HostHeldException while held
        assertEquals(slept, f.clock.totalSleptMillis(), "no wait owed either");
        HostSnapshot after = f.host().snapshot(f.clock.millis());
        assertFalse(after.holdUntil().isPresent());
        assertEquals(1, after.holds, "the counters stay");
        assertEquals(Category.TRUTHFUL, after.category);
    }

    @Test
    void forgettingAHostDropsItsStateAndKnowledgeButNotWhileARequestIsInFlight() throws Exception {
        EngineFixture f = heldHost();
        HostState before = f.host();
        assertTrue(f.engine.knowledge().read("portal.example:443").holdUntil().isPresent());

        assertTrue(f.engine.forget("portal.example:443"));
        assertNull(f.engine.host("portal.example:443"));
        assertFalse(f.engine.knowledge().read("portal.example:443").holdUntil().isPresent(), "the hold went with it");
        assertFalse(f.engine.forget("portal.example:443"), "not tracked now");

        Call fresh = f.engine.open("portal.example", 443, true);
        fresh.awaitTurn(); // a new host: no hold
        HostState again = f.engine.host("portal.example:443");
        assertTrue(again != before);
        assertEquals(0, again.snapshot(f.clock.millis()).holds);
        assertEquals(1, again.snapshot(f.clock.millis()).inFlight);
        assertFalse(f.engine.forget("portal.example:443"), "a request holds a permit: forgetting would lift its cap");
        fresh.onResponse(200, null);
        fresh.endAttempt();
        assertEquals(0, again.snapshot(f.clock.millis()).inFlight);
        assertTrue(f.engine.forget("portal.example:443"));
    }

    @Test
    void theSnapshotCarriesTheLastDecisionAndItsReason() throws Exception {
        EngineFixture f = new EngineFixture(Policy.DEFAULTS);
        Call call = f.answered("portal.example", 429, null);
        HostSnapshot s = f.host().snapshot(f.clock.millis());
        assertSame(call.lastDecision(), s.lastDecision().get());
        assertEquals(Reason.NO_HEADER, s.lastDecision().get().waitBeforeNextRequest().reason());
        assertEquals(1, s.maxConcurrency, "the cap in force: a refusal alone leaves a new host in its slow start, one in flight");
    }

    /** An operator's hold: requests fail fast with its reason until it ends, a later hold stands, release lifts it. */
    @Test
    void anOperatorsHoldFailsRequestsFastUntilItEndsOrIsReleased() throws Exception {
        EngineFixture f = new EngineFixture(Policy.DEFAULTS);
        f.answered("data.kingcounty.gov", 200, null);
        long now = f.clock.millis();
        assertEquals(now + 600_000, f.engine.hold("data.kingcounty.gov:443", now + 600_000, "held by an operator from the command line"));
        assertEquals(now + 600_000, f.engine.hold("data.kingcounty.gov:443", now + 60_000, "a shorter one"), "the later hold stands");
        assertEquals(Long.MIN_VALUE, f.engine.hold("elsewhere.example:443", now + 60_000, "x"), "not tracked: nothing held");
        HostHeldException held = assertThrows(HostHeldException.class, () -> f.engine.open("data.kingcounty.gov", 443, true).awaitTurn());
        assertTrue(held.getMessage().contains("held by an operator from the command line"), held.getMessage());
        assertEquals(1, f.host().snapshot(now).holds);
        assertTrue(f.engine.releaseHold("data.kingcounty.gov:443"));
        f.engine.open("data.kingcounty.gov", 443, true).awaitTurn(); // goes
    }
}
