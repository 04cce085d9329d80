package dev.retryafter.agent.engine.learn;

import dev.retryafter.agent.engine.header.RateLimitHint;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HintBudgetTest {

    private static RateLimitHint hint(long remaining, long resetMillis) {
        return new RateLimitHint("X-RateLimit-*", 20, remaining, resetMillis, RateLimitHint.UNKNOWN, false);
    }

    @Test
    void aCompleteHintIsBelievedOnceAndPacesByItsAllowance() {
        HintBudget budget = new HintBudget();
        HintBudget.Change change = budget.onResponse(hint(2, 1_000), false, 1, 1, 0);
        assertNotNull(change);
        assertTrue(change.isBelief());
        assertNull(budget.onResponse(hint(1, 900), false, 2, 2, 100), "believed once, said once");
        assertEquals(0, budget.waitAt(100, 3), "one left for send 3");
        assertEquals(900, budget.waitAt(100, 4), "send 4 waits for the reset");
        assertEquals(0, budget.waitAt(1_000, 4), "after the reset, room again until the next hint");
    }

    @Test
    void aLateAnswerToAnEarlyRequestHandsOutNoRoomTheLaterOnesTook() {
        HintBudget budget = new HintBudget();
        budget.onResponse(hint(3, 1_000), false, 1, 1, 0);
        // Sends 2, 3 and 4 went; the answer to 2 says 2 left, as of send 2: sends 3 and 4 took them.
        budget.onResponse(hint(2, 950), false, 2, 4, 50);
        assertEquals(950, budget.waitAt(50, 5));
    }

    @Test
    void aRefusalWhileItSaidRequestsWereLeftIsDistrusted() {
        HintBudget budget = new HintBudget();
        budget.onResponse(hint(100, 0), false, 1, 1, 0);
        HintBudget.Change change = budget.onResponse(hint(100, 0), true, 2, 2, 10);
        assertNotNull(change);
        assertFalse(change.isBelief());
        assertTrue(change.toString().contains("refused while it said 100 were left"), change.toString());
        assertEquals(0, budget.waitAt(20, 3));
        assertNull(budget.onResponse(hint(0, 5_000), false, 3, 3, 30), "never believed again");
        assertEquals(0, budget.waitAt(40, 4));
    }

    @Test
    void aResetInThePastIsDistrusted() {
        HintBudget budget = new HintBudget();
        HintBudget.Change change = budget.onResponse(new RateLimitHint("X-RateLimit-*", 20, 5, 0, RateLimitHint.UNKNOWN, true), false, 1, 1, 0);
        assertFalse(change.isBelief());
        assertTrue(budget.describe().startsWith("distrusted"));
    }

    @Test
    void aRefusalWithNoHintWhenTheAllowanceHadRoomToSpareIsDistrusted() {
        HintBudget budget = new HintBudget();
        budget.onResponse(hint(10, 2_000), false, 1, 1, 0);
        HintBudget.Change change = budget.onResponse(null, true, 2, 2, 50);
        assertNotNull(change);
        assertFalse(change.isBelief());
    }

    @Test
    void aHostWithoutHintsStopsBeingAskedAfterItsFirstFew() {
        HintBudget budget = new HintBudget();
        for (int i = 0; i < 16; i++) {
            assertTrue(budget.wanted(200));
            budget.onResponse(null, false, i + 1, i + 1, i);
        }
        assertFalse(budget.wanted(200));
        assertTrue(budget.wanted(429), "a refusal's headers are always read");
    }

    @Test
    void earlierSendsStillOnTheirWayWhenAHintComesAreCountedAsTaken() {
        HintBudget budget = new HintBudget();
        budget.onResponse(hint(10, 2_000), false, 1, 1, 0);
        budget.onSent(2);
        budget.onSent(3);
        budget.onSent(4);
        // Send 4 overtook 2 and 3 on other connections: its hint may not count them.
        budget.onResponse(hint(2, 1_900), false, 4, 4, 100);
        assertEquals(1_900, budget.waitAt(100, 5), "2 left, less the 2 that may not be counted yet");
        budget.onResponse(hint(1, 1_890), false, 2, 4, 110); // answered later, but the portal's older word: it leaves fewer
        assertEquals(1_890, budget.waitAt(110, 5));
    }

    @Test
    void anAttemptThatFailedIsNoLongerOnItsWay() {
        HintBudget budget = new HintBudget();
        budget.onResponse(hint(10, 2_000), false, 1, 1, 0);
        budget.onSent(2);
        budget.onEnded(2);
        budget.onSent(3);
        budget.onResponse(hint(2, 1_900), false, 3, 3, 100);
        assertEquals(0, budget.waitAt(100, 4), "send 2 failed before it was counted or not: it is not on its way");
    }

    @Test
    void twoTurnsCannotBothTakeTheLastPlace() {
        HintBudget budget = new HintBudget();
        budget.onResponse(hint(1, 1_000), false, 1, 1, 0);
        assertEquals(0, budget.claim(10, 2), "the last place, taken");
        assertEquals(990, budget.claim(10, 2), "a second thread before the first one's send is counted: none left");
        budget.onSent(2);
        assertEquals(990, budget.waitAt(10, 3), "counted as sent now, the claim given back: still none left");
    }

    @Test
    void withinOneAllowanceTheWordThatLeavesFewerPlacesWins() {
        HintBudget budget = new HintBudget();
        budget.onResponse(hint(20, 2_000), false, 1, 1, 0);
        budget.onSent(2);
        budget.onSent(3);
        // The portal counted send 3 before send 2, and said so: 17 left after 3; the client reads 3's answer first...
        budget.onResponse(hint(17, 1_950), false, 3, 3, 50);
        // ...then 2's, which the portal answered before it counted 3: 18 left. It must not hand back a place.
        budget.onResponse(hint(18, 1_940), false, 2, 3, 60);
        for (long send = 4; send <= 20; send++) {
            assertEquals(0, budget.waitAt(60, send), "send " + send);
            budget.onSent(send);
        }
        assertEquals(1_940, budget.waitAt(60, 21), "17 left after send 3: sends 4 to 20, and no more");
    }
}
