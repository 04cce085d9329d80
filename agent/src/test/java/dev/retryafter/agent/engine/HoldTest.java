package dev.retryafter.agent.engine;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Asserts that a host naming the same moment beyond max-sleep twice is held, whatever its category, and
 * a liar's moving moment never is; the request that confirmed the hold fails fast like every other.
 */
class HoldTest {

    private static final Policy TRUTHFUL = Policy.builder().maxSleepMillis(300_000).pinnedCategory(Category.TRUTHFUL).build();

    @Test
    void aConfirmedLongWaitHoldsTheHostAndNewRequestsFailFast() throws Exception {
        EngineFixture f = new EngineFixture(TRUTHFUL);
        long recoversAt = f.clock.millis() + 3_600_000;

        Call call = f.engine.open("data.kingcounty.gov", 443, true);
        call.awaitTurn();
        assertTrue(call.onResponse(429, "3600"), "the first long claim is not yet proven: wait max-sleep");
        call.endAttempt();
        assertEquals(Reason.HEADER_BEYOND_CEILING, call.lastDecision().waitBeforeNextRequest().reason());
        assertEquals(300_000, call.lastDecision().waitBeforeNextRequest().millis());

        call.awaitTurn();
        assertEquals(300_000, f.clock.totalSleptMillis(), "never sleeps past max-sleep");
        long remaining = (recoversAt - f.clock.millis()) / 1000;
        assertTrue(call.onResponse(429, Long.toString(remaining)), "the same moment named again: hold, and the retry fails fast");
        call.endAttempt();
        assertEquals(Decision.Outcome.HOLD, call.lastDecision().outcome());
        assertEquals(recoversAt, call.lastDecision().holdUntil().getAsLong(), 1_000);

        Call next = f.engine.open("data.kingcounty.gov", 443, true);
        HostHeldException held = assertThrows(HostHeldException.class, next::awaitTurn);
        assertTrue(held.getMessage().contains("data.kingcounty.gov:443"), held.getMessage());
        assertTrue(held.getMessage().contains("beyond max-sleep"), held.getMessage());
        assertTrue(held.getMessage().contains(Instant.ofEpochMilli(held.untilMillis()).toString()), held.getMessage());
        assertEquals(300_000, f.clock.totalSleptMillis(), "failing fast does not wait");
        assertEquals(1, f.listener.heldRequests.size());

        f.clock.set(recoversAt + 1);
        Call after = f.engine.open("data.kingcounty.gov", 443, true);
        after.awaitTurn();
        assertFalse(after.onResponse(200, null));
        HostSnapshot snapshot = f.host().snapshot(f.clock.millis());
        assertEquals(1, snapshot.holds);
        assertEquals(1, snapshot.heldRequests);
    }

    @Test
    void callersAlreadyWaitingWhenAHoldStartsFailFastInsteadOfSleepingThroughIt() throws Exception {
        dev.retryafter.agent.testing.VirtualClock clock = new dev.retryafter.agent.testing.VirtualClock();
        dev.retryafter.agent.testing.VirtualScheduler scheduler = new dev.retryafter.agent.testing.VirtualScheduler(clock);
        // A paced host (one request every 100 s), so a second caller queues behind the first.
        Policy paced = TRUTHFUL.toBuilder().startRatePerSecond(0.01).build();
        RetryEngine engine = RetryEngine.builder().clock(clock).sleeper(clock).delays(scheduler).random(() -> 0.5)
                .policies(PolicyLookup.everyHost(paced)).build();
        long recoversAt = clock.millis() + 3_600_000;
        Call first = engine.open("portal.example", 443, true);
        first.turn().join();
        first.onResponse(429, "3600");                         // a long claim: wait max-sleep to check it
        first.endAttempt();
        long refusedAt = clock.millis();
        java.util.concurrent.CompletableFuture<Void> retry = first.turn();                    // at +300 s
        clock.set(refusedAt + 250_000);
        java.util.concurrent.CompletableFuture<Void> waiting = engine.open("portal.example", 443, true).turn(); // a slot after it
        scheduler.run(refusedAt + 300_000);
        assertTrue(retry.isDone() && !retry.isCompletedExceptionally());
        assertFalse(waiting.isDone(), "queued behind the retry");
        first.onResponse(429, Long.toString((recoversAt - clock.millis()) / 1000)); // the same moment again: hold
        first.endAttempt();
        assertEquals(Decision.Outcome.HOLD, first.lastDecision().outcome());

        long heldAt = clock.millis();
        scheduler.run(Long.MAX_VALUE);
        assertTrue(CallTest.failureOf(waiting) instanceof HostHeldException, "the caller queued before the hold fails fast too");
        assertTrue(clock.millis() - heldAt <= paced.maxSleepMillis(), "at its next wake-up, not an hour later");
        assertTrue(first.host().permits().isIdle(), "nobody holds a permit through the hold");
    }

    @Test
    void aHostCanBeHeldAgainAfterAHoldEnds() throws Exception {
        EngineFixture f = new EngineFixture(TRUTHFUL);
        for (int round = 1; round <= 2; round++) {
            long recoversAt = f.clock.millis() + 3_600_000;
            Call call = f.engine.open("data.kingcounty.gov", 443, true);
            call.awaitTurn();
            assertTrue(call.onResponse(429, "3600"));
            call.endAttempt();
            call.awaitTurn();
            assertTrue(call.onResponse(429, Long.toString((recoversAt - f.clock.millis()) / 1000)), "held: the retry fails fast");
            call.endAttempt();
            assertEquals(Reason.HOLD_CONFIRMED, call.lastDecision().waitBeforeNextRequest().reason(), "round " + round);
            f.clock.set(recoversAt + 1);                       // the hold ends; the host limits again at once
        }
        assertEquals(2, f.host().snapshot(f.clock.millis()).holds);
    }

    @Test
    void anHttpDateNamingTheSameMomentConfirmsTheHold() throws Exception {
        EngineFixture f = new EngineFixture(TRUTHFUL);
        String moment = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC)
                .format(Instant.ofEpochMilli(f.clock.millis() + 2 * 3_600_000));
        Call call = f.engine.open("portal.example", 443, true);
        call.awaitTurn();
        assertTrue(call.onResponse(503, moment));
        call.endAttempt();
        call.awaitTurn();
        assertTrue(call.onResponse(503, moment));
        assertEquals(Decision.Outcome.HOLD, call.lastDecision().outcome());
        call.endAttempt();
        assertThrows(HostHeldException.class, call::awaitTurn, "the request that confirmed the hold fails fast on its retry");
    }

    @Test
    void aHostWithNoHistoryIsHeldByADateNamedTwice() throws Exception {
        EngineFixture f = new EngineFixture(Policy.DEFAULTS);
        String midnight = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC)
                .format(Instant.ofEpochMilli(f.clock.millis() + 20 * 3_600_000));
        Call call = f.engine.open("quota.example", 443, true);
        call.awaitTurn();
        assertTrue(call.onResponse(429, midnight));
        assertEquals(Reason.UNPROVEN_HEADER_BEYOND_CEILING, call.lastDecision().waitBeforeNextRequest().reason());
        call.endAttempt();
        call.awaitTurn();
        call.onResponse(429, midnight);
        call.endAttempt();
        assertEquals(Reason.HOLD_CONFIRMED, call.lastDecision().waitBeforeNextRequest().reason(), "held after two refusals");
        assertEquals(Category.UNKNOWN, f.host().category());
    }

    @Test
    void aConstantLongHeaderIsNeverConfirmed() throws Exception {
        EngineFixture f = new EngineFixture(Policy.builder().maxSleepMillis(20_000).maxAttempts(10).pinnedCategory(Category.TRUTHFUL).build());
        Call call = f.engine.open("liar.example", 443, true);
        int attempts = 0;
        do {
            try {
                call.awaitTurn();
            } catch (HostHeldException held) {
                break;
            }
            attempts++;
            call.onResponse(429, "3600");
            call.endAttempt();
            assertTrue(call.lastDecision().waitBeforeNextRequest().reason() != Reason.HOLD_CONFIRMED,
                    "the liar's moment moves with the clock: it is never confirmed");
        } while (call.retryRequested());
        assertTrue(attempts >= 2, "sent " + attempts);
        // Refused for longer than max-sleep with nothing let through, it is held all the same: as a persistent streak.
        assertEquals(Reason.HOLD_PERSISTENT, call.lastDecision().waitBeforeNextRequest().reason());
    }

    @Test
    void aMomentThatMovedConfirmsNothing() throws Exception {
        EngineFixture f = new EngineFixture(Policy.DEFAULTS);
        Call call = f.engine.open("unknown.example", 443, true);
        call.awaitTurn();
        call.onResponse(429, "3600");
        call.endAttempt();
        call.awaitTurn();
        assertTrue(call.onResponse(429, "3300"));
        assertEquals(Decision.Outcome.RETRY, call.lastDecision().outcome());
    }
}
