package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.decide.Decide;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A request's last tries are kept for moments the host is likely to have room, since a refusal of the
 * last loses its record ({@link Decide#lastTriesUntil}): the streak's age each should go at.
 */
class LastTriesTest {

    private static final Policy DEFAULTS = Policy.DEFAULTS;
    private static final long QUOTA = Decide.persistsAfterMillis(DEFAULTS);
    private static final long UNKNOWN = 0;

    @Test
    void inTheFirstStreakTheLastTriesWaitForThePolicysWindowTheSecondLastTwoThirdsThereOnALogScale() {
        assertEquals(24_328, Decide.lastTriesUntil(DEFAULTS, UNKNOWN, 2, 4_000), 1, "4 s, 60 s: two thirds of the way, 24.3 s");
        assertEquals(DEFAULTS.windowMillis(), Decide.lastTriesUntil(DEFAULTS, UNKNOWN, 2, 4_000, false),
                "a request among others that go on looking for the end waits for the window's");
        assertEquals(DEFAULTS.windowMillis(), Decide.lastTriesUntil(DEFAULTS, UNKNOWN, 1, 4_000));
        assertTrue(Decide.lastTriesUntil(DEFAULTS, UNKNOWN, 3, 4_000) <= 4_000, "earlier tries keep looking for the end");
    }

    @Test
    void inTheFirstStreakTheRaiseIsTheRequestsOwnAndTheOthersGoOnLookingForTheEnd() throws Exception {
        EngineFixture fixture = new EngineFixture(DEFAULTS);
        Call patient = fixture.engine.open("portal.example", 443, true);
        for (int attempt = 1; attempt <= 3; attempt++) {
            patient.awaitTurn();
            patient.onResponse(429, "0");
            patient.endAttempt();
        }
        Wait raised = patient.lastDecision().waitBeforeNextRequest();
        assertEquals(Wait.Bound.LAST_TRY, raised.bound(), raised::toString);
        // Refused at about 2 s into the streak: two thirds of the way to 60 s on a log scale is about 19 s, not the 60 s end.
        assertTrue(raised.millis() > 5_000 && raised.millis() < 30_000,
                "its second-last try waits two thirds of the way to the default window's end on a log scale: " + raised);
        assertTrue(raised.hostMillis() <= 5_000, "the host waits only as the search does: " + raised.hostMillis());

        long before = fixture.clock.millis();
        Call other = fixture.engine.open("portal.example", 443, true);
        other.awaitTurn();
        assertTrue(fixture.clock.millis() - before <= raised.hostMillis(), "another request goes on looking for the window's end");
        other.onResponse(200, null);
        other.endAttempt();

        patient.awaitTurn();
        assertTrue(fixture.clock.millis() - before >= raised.millis(), "the request itself waits its own raise");
    }

    /**
     * One worker, a fixed window of 40 per 20 s: its refusals at 0, 1 and 2 s into the streak are its own, so its
     * second-last try goes two thirds of the way to the default window's end on a log scale (about 19 s), and finds
     * the window's end there; waiting for the default window's, the first period read 40 in 62 s.
     */
    @Test
    void aRequestAloneInTheFirstStreakFindsAWindowOf20sBeforeTheDefaultWindowsEnd() throws Exception {
        EngineFixture fixture = new EngineFixture(DEFAULTS);
        new FixedWindowPortal(40, 20_000, fixture.clock.millis()).fetch(fixture, 45, now -> "0");
        long window = fixture.host().snapshot(fixture.clock.millis()).windowMillis;
        assertTrue(window >= 18_000 && window <= 22_000, "the first period is about 20 s: " + window);
        assertEquals(0, fixture.host().snapshot(fixture.clock.millis()).gaveUp);
    }

    @Test
    void theLastTryAndAWindowKnownRaiseTheHostsWaitToo() throws Exception {
        EngineFixture fixture = new EngineFixture(DEFAULTS);
        Call call = fixture.engine.open("portal.example", 443, true);
        for (int attempt = 1; attempt <= 4; attempt++) {
            call.awaitTurn();
            call.onResponse(429, "0");
            call.endAttempt();
        }
        Wait last = call.lastDecision().waitBeforeNextRequest();
        assertEquals(last.millis(), last.hostMillis(), "the last try's wait is the host's: a refusal then holds it, " + last);
    }

    @Test
    void aStreakOlderThanTheWindowKeepsTheLastTryForAQuotasAge() {
        assertEquals(QUOTA, Decide.lastTriesUntil(DEFAULTS, UNKNOWN, 1, DEFAULTS.windowMillis()));
        assertEquals(QUOTA, Decide.lastTriesUntil(DEFAULTS, 10_000, 1, 12_000));
        assertTrue(Decide.lastTriesUntil(DEFAULTS, UNKNOWN, 2, DEFAULTS.windowMillis()) <= DEFAULTS.windowMillis(),
                "the second-last goes at once: refused, it shows the streak is long");
    }

    @Test
    void underAWindowLearnedAsLongAsAQuotaTheLastTryWaitsForAQuotasAge() {
        assertEquals(QUOTA, Decide.lastTriesUntil(DEFAULTS, 86_400_000, 1, 5_000));
    }

    @Test
    void underAShortLearnedWindowTheLastTryGoesAtThreeTimesTheStreaksAge() {
        assertEquals(12_000, Decide.lastTriesUntil(DEFAULTS, 60_000, 1, 4_000));
        assertEquals(60_000, Decide.lastTriesUntil(DEFAULTS, 60_000, 1, 30_000), "never past the window");
        assertTrue(Decide.lastTriesUntil(DEFAULTS, 60_000, 2, 4_000) <= 4_000, "only the last try, once the window is learned");
    }
}
