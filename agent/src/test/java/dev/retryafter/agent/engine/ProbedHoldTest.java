package dev.retryafter.agent.engine;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A quota with no header and a penalty box: refusals that persist past max-sleep with nothing let
 * through (and as many as a request has attempts), or a block status after refusals, hold the host; the hold ends in one probe at a time,
 * spaced further while the probe keeps failing, and ends for good once one is let through.
 */
class ProbedHoldTest {

    private static final Policy POLICY = Policy.builder().maxSleepMillis(10_000).build();

    /** Sends one attempt of {@code call} and answers it with {@code status}; false when the turn failed fast. */
    private static boolean send(Call call, int status) throws InterruptedException {
        try {
            call.awaitTurn();
        } catch (HostHeldException held) {
            return false;
        }
        call.onResponse(status, null);
        call.endAttempt();
        return true;
    }

    @Test
    void refusalsThatOutlastMaxSleepHoldTheHostAndAProbeEndsIt() throws Exception {
        EngineFixture f = new EngineFixture(POLICY);
        Call call = f.engine.open("quota.example", 443, true);
        long start = f.clock.millis();
        while (send(call, 429)) {
            assertTrue(f.clock.millis() - start <= POLICY.maxSleepMillis() + POLICY.backoffCapMillis(), "held in time");
        }
        assertEquals(Reason.HOLD_PERSISTENT, call.lastDecision().waitBeforeNextRequest().reason());
        long until = call.lastDecision().holdUntil().getAsLong();
        assertEquals(POLICY.maxSleepMillis(), until - f.clock.millis(), 1, "the first hold lasts max-sleep");

        // The probe is refused: held again, twice as long.
        f.clock.set(until);
        Call probe = f.engine.open("quota.example", 443, true);
        assertTrue(send(probe, 429));
        assertEquals(Decision.Outcome.HOLD, probe.lastDecision().outcome());
        long second = probe.lastDecision().holdUntil().getAsLong();
        assertEquals(2 * POLICY.maxSleepMillis(), second - f.clock.millis(), 1);

        // The next probe goes alone: while it is out, every other request fails fast.
        f.clock.set(second);
        Call next = f.engine.open("quota.example", 443, true);
        next.awaitTurn();
        HostHeldException meanwhile = assertThrows(HostHeldException.class, () -> f.engine.open("quota.example", 443, true).awaitTurn());
        assertTrue(meanwhile.whileProbing());
        next.onResponse(200, null);
        next.endAttempt();
        assertTrue(send(f.engine.open("quota.example", 443, true), 200), "let through: the hold and its probing are over");
        assertTrue(send(f.engine.open("quota.example", 443, true), 200));
    }

    @Test
    void aBlockStatusAfterRefusalsHoldsTheHostAndIsNeverRetried() throws Exception {
        EngineFixture f = new EngineFixture(POLICY);
        Call call = f.engine.open("boxed.example", 443, true);
        assertTrue(send(call, 429));
        assertTrue(call.onResponse(403, null) || true); // answered without a turn: the retry's response
        call.endAttempt();
        Decision decision = call.lastDecision();
        assertEquals(Reason.HOLD_BLOCKED, decision.waitBeforeNextRequest().reason());
        assertThrows(HostHeldException.class, call::awaitTurn, "the blocked request fails fast instead of looping");
        assertTrue(f.host().snapshot(f.clock.millis()).holds >= 1);
    }

    @Test
    void aBlockStatusOutOfTheBlueIsTheApplicationsAndTeachesNothing() throws Exception {
        EngineFixture f = new EngineFixture(POLICY);
        Call call = f.engine.open("forbidden.example", 443, true);
        call.awaitTurn();
        assertFalse(call.onResponse(403, null));
        call.endAttempt();
        assertNull(call.lastDecision(), "no refusal came before it: a 403 is the application's");
        assertEquals(0, f.host().snapshot(f.clock.millis()).holds);
    }

    @Test
    void blockStatusesAreAPolicySetting() {
        Policy none = Policy.builder().blockStatuses().build();
        assertFalse(none.isBlock(403));
        assertTrue(Policy.DEFAULTS.isBlock(403));
        assertThrows(Policy.InvalidSetting.class, () -> Policy.builder().blockStatuses(429).build(), "a retry status cannot be a block");
    }
}
