package dev.retryafter.agent.engine;

import dev.retryafter.agent.testing.PortalRun;
import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Asserts that each kind of portal is recognised within a handful of refusal streaks, in virtual time. */
class CategoryScenariosTest {

    private static final Policy POLICY = Policy.builder().maxSleepMillis(120_000).maxAttempts(8).build();

    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource({
            "TRUTHFUL, TRUTHFUL",
            "SERVICE_UNAVAILABLE, TRUTHFUL",
            "HEADER_ON_SUCCESS, TRUTHFUL",
            "ALWAYS_ZERO, ALWAYS_ZERO",
            "PAST_DATE, ALWAYS_ZERO",
            "CONSTANT_OVERSTATED, CONSTANT_OVERSTATED",
            "ABSENT, ABSENT",
    })
    void eachPortalIsRecognisedWithinAHandfulOfStreaks(Behaviour behaviour, Category expected) {
        EngineFixture f = new EngineFixture(POLICY);
        PortalModel portal = new PortalModel(behaviour, 20, 60_000);
        int streaks = 0;
        while (f.listener.changes.size() == 0 || f.category() != expected) {
            PortalRun.fetch(f.engine, f.clock, portal, 25);
            streaks = f.listener.learned.size();
            assertTrue(streaks <= 5, behaviour + " still " + f.category() + " after " + streaks + " streaks");
        }
        assertEquals(expected, f.category());
    }

    @Test
    void aHeaderCaughtNamingTwoMomentsAtOnceIsNeverHeldTruthfulAgain() throws Exception {
        EngineFixture f = new EngineFixture(POLICY);
        for (int i = 0; i < 20; i++) {
            f.answered("portal.example", 200, null); // the slow start: one in flight, two after twenty let through
        }
        Call first = f.engine.open("portal.example", 443, true);
        Call second = f.engine.open("portal.example", 443, true);
        first.awaitTurn();
        second.awaitTurn();
        first.onResponse(429, "14");
        second.onResponse(429, "24"); // in flight together, told moments ten seconds apart: one of them lied
        first.endAttempt();
        second.endAttempt();
        CharacterisationChange change = f.listener.changes.get(f.listener.changes.size() - 1);
        assertEquals("Retry-After named moments 10.0s apart to two refusals 0.0s apart", change.evidence());

        // From here on the portal tells the truth, streak after streak: its header is not believed again all the same.
        PortalRun.fetch(f.engine, f.clock, new PortalModel(Behaviour.TRUTHFUL, 20, 60_000), 300);
        assertTrue(f.listener.learned.size() >= 5, "a window's worth of streaks: " + f.listener.learned.size());
        assertEquals(Category.UNRELIABLE, f.category());
        assertTrue(f.listener.decisions.stream().noneMatch(d -> d.category() == Category.TRUTHFUL));
    }

    @Test
    void everyWaitStaysWithinFloorAndCeilingAndNoRefusalIsFollowedSooner() {
        for (Behaviour behaviour : Behaviour.values()) {
            EngineFixture f = new EngineFixture(POLICY);
            PortalModel portal = new PortalModel(behaviour, 30, 60_000, 20 * 60_000, 3);
            PortalRun run = PortalRun.fetch(f.engine, f.clock, portal, 1_500);
            for (Decision d : f.listener.decisions) {
                if (d.outcome() != Decision.Outcome.HOLD) {
                    long wait = d.waitBeforeNextRequest().millis();
                    assertTrue(wait >= POLICY.minSleepMillis() && wait <= POLICY.maxSleepMillis(), behaviour + ": " + d);
                }
            }
            PortalStats stats = portal.stats();
            assertTrue(stats.shortestGapAfterAnyRefusalMillis >= POLICY.minSleepMillis(), behaviour + ": " + stats);
            assertTrue(run.fetched >= 1_495, behaviour + " fetched only " + run.fetched);
        }
    }

    @Test
    void aTruthfulPortalThatTurnsIntoAConstantIsReCharacterisedAndWarnedAbout() {
        EngineFixture f = new EngineFixture(POLICY);
        PortalModel portal = new PortalModel(Behaviour.DRIFTS_TO_CONSTANT, 20, 60_000, 10 * 60_000, 1);
        PortalRun.fetch(f.engine, f.clock, portal, 200); // 10 windows: truthful throughout
        assertEquals(Category.TRUTHFUL, f.category());
        int learnedBefore = f.listener.learned.size();

        int fetched = 0;
        long streaksAfterDrift = 0;
        while (f.category() != Category.CONSTANT_OVERSTATED) {
            PortalRun run = PortalRun.fetch(f.engine, f.clock, portal, 20);
            fetched += run.fetched;
            assertEquals(0, run.heldToApplication, "never held for an hour on a lie");
            streaksAfterDrift = f.listener.learned.size() - learnedBefore;
            assertTrue(streaksAfterDrift <= 3, "still " + f.category() + " after " + streaksAfterDrift + " streaks");
        }
        assertTrue(f.listener.changes.stream().anyMatch(CharacterisationChange::isCategoryChange), "a category change is announced");
        assertTrue(streaksAfterDrift >= 2, "one streak is not evidence enough: " + streaksAfterDrift);
        PortalRun after = PortalRun.fetch(f.engine, f.clock, portal, 200);
        assertEquals(200, after.fetched);
        assertTrue(after.elapsedMillis < 11 * 60_000, "back at the real limit: " + after.elapsedMillis);
    }

    /**
     * A portal that blocks for 20 s after the limit and names a random wait, uncorrelated with it. Its category
     * moves both ways as streaks enter and leave the window (a header of 0 followed by a 20 s block is too short,
     * and makes it unreliable until that streak leaves), so it is judged over the whole run: unreliable for most of
     * it. At one moment it is a draw: a window whose last streaks all drew a long header, each honoured, reads truthful.
     */
    @Test
    void headersUncorrelatedWithRecoveryAreUnreliable() throws Exception {
        EngineFixture f = new EngineFixture(POLICY);
        Random random = new Random(8);
        long blockedUntil = Long.MIN_VALUE;
        int admitted = 0;
        int unreliable = 0;
        for (int i = 0; i < 2_000; i++) {
            Call call = f.engine.open("penalty-box.example", 443, true);
            do {
                call.awaitTurn();
                long now = f.clock.millis();
                boolean refused = now < blockedUntil || ++admitted % 10 == 0;
                if (refused && now >= blockedUntil) {
                    blockedUntil = now + 20_000;
                }
                String header = random.nextInt(4) == 0 ? Integer.toString(40 + random.nextInt(60)) : Integer.toString(random.nextInt(4));
                call.onResponse(refused ? 429 : 200, refused ? header : null);
                call.endAttempt();
                f.clock.advance(50);
            } while (call.retryRequested());
            if (i >= 200 && f.category() == Category.UNRELIABLE) {
                unreliable++;
            }
        }
        assertTrue(unreliable > 1_800 / 2, "unreliable for most of the run: " + unreliable + " of 1,800 requests");
    }
}
