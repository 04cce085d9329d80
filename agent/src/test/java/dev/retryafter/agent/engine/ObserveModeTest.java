package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.knowledge.ObservedTurn;

import dev.retryafter.agent.testing.RecordingListener;
import dev.retryafter.agent.testing.VirtualClock;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Asserts that in observe mode the engine learns and says what it would do, and changes nothing
 * of the traffic: no wait, no retry, no cap, no hold; and that the mode switches at run time.
 */
class ObserveModeTest {

    private final VirtualClock clock = new VirtualClock();
    private final RecordingListener listener = new RecordingListener();
    private final List<ObservedTurn> observedTurns = new ArrayList<>();

    private RetryEngine engine(Policy policy, Mode mode) {
        Random random = new Random(11);
        return RetryEngine.builder().clock(clock).sleeper(clock).random(random::nextDouble).mode(mode)
                .policies(PolicyLookup.everyHost(policy))
                .listener(new DecisionListener() {
                    @Override
                    public void onRefusal(HostState host, Decision decision) {
                        listener.onRefusal(host, decision);
                    }

                    @Override
                    public void onRecharacterised(HostState host, CharacterisationChange change) {
                    }

                    @Override
                    public void onHeldRequest(HostState host, HostHeldException failure) {
                        listener.onHeldRequest(host, failure);
                    }

                    @Override
                    public void onObservedTurn(HostState host, ObservedTurn turn) {
                        observedTurns.add(turn);
                    }
                })
                .build();
    }

    private static HostSnapshot snapshot(RetryEngine engine) {
        return engine.hosts().iterator().next().snapshot(engine.now());
    }

    @Test
    void anObservedRefusalIsLearnedAndSaidButNotRetriedNorWaitedOut() throws Exception {
        RetryEngine engine = engine(Policy.DEFAULTS, Mode.OBSERVE);
        Call call = engine.open("portal.example", 443, true);
        call.awaitTurn();
        assertFalse(call.onResponse(429, "0"), "observe mode never retries");
        call.endAttempt();
        assertFalse(call.retryRequested());

        Decision decision = call.lastDecision();
        assertEquals(Mode.OBSERVE, decision.mode());
        assertTrue(decision.isRetry(), "the decision itself is what enforce mode would do");
        assertTrue(DecisionLine.format(decision).contains("-> would retry in 1.000s"), DecisionLine.format(decision));

        Call next = engine.open("portal.example", 443, true);
        next.awaitTurn();
        next.endAttempt();
        assertEquals(0, clock.totalSleptMillis(), "the next request is not held back either");

        HostSnapshot s = snapshot(engine);
        assertEquals(2, s.requests);
        assertEquals(1, s.refusals);
        assertEquals(0, s.retries);
        assertEquals(1, s.observed.retries);
        assertEquals(1_000, s.observed.retryWaitMillis);
        assertEquals(1, s.observed.delayed, "the second request would have waited out the refusal");
        assertEquals(1_000, s.observed.delayMillis);
        assertTrue(engine.hosts().iterator().next().knowledge().notBeforeMillis > 0, "what the refusal taught is kept");
        assertEquals(1, observedTurns.size());
    }

    @Test
    void observeModeTakesNoPermitAwayAndLeavesNoneBehind() throws Exception {
        RetryEngine engine = engine(Policy.builder().maxConcurrency(1).build(), Mode.OBSERVE);
        Call first = engine.open("portal.example", 443, true);
        Call second = engine.open("portal.example", 443, true);
        first.awaitTurn();
        CompletableFuture<Void> secondTurn = second.turn();
        assertTrue(secondTurn.isDone(), "over the cap, the request goes all the same");
        assertEquals(1, snapshot(engine).observed.queued);
        assertEquals(2, first.host().permits().inUse());
        first.endAttempt();
        second.endAttempt();
        assertEquals(0, first.host().permits().inUse());

        engine.switchMode(Mode.ENFORCE);
        Call enforced = engine.open("portal.example", 443, true);
        Call queued = engine.open("portal.example", 443, true);
        enforced.awaitTurn();
        CompletableFuture<Void> queuedTurn = queued.turn();
        assertFalse(queuedTurn.isDone(), "in enforce mode the cap holds again");
        enforced.endAttempt();
        assertTrue(queuedTurn.isDone());
        queued.endAttempt();
    }

    @Test
    void anObservedHoldFailsNothingFast() throws Exception {
        RetryEngine engine = engine(Policy.builder().maxSleepMillis(300_000).pinnedCategory(Category.TRUTHFUL).build(), Mode.OBSERVE);
        long recoversAt = clock.millis() + 3_600_000;
        Call first = engine.open("portal.example", 443, true);
        first.awaitTurn();
        first.onResponse(429, "3600");
        first.endAttempt();
        clock.advance(10_000);
        Call second = engine.open("portal.example", 443, true);
        second.awaitTurn();
        second.onResponse(429, Long.toString((recoversAt - clock.millis()) / 1000));
        second.endAttempt();
        assertEquals(Decision.Outcome.HOLD, second.lastDecision().outcome());
        assertTrue(DecisionLine.format(second.lastDecision()).contains("would hold host until"));

        Call third = engine.open("portal.example", 443, true);
        third.awaitTurn(); // enforce mode would throw HostHeldException here
        third.endAttempt();
        HostSnapshot s = snapshot(engine);
        assertEquals(0, s.holds);
        assertEquals(1, s.observed.holds);
        assertEquals(0, s.heldRequests);
        assertEquals(1, s.observed.failedFast);
        assertTrue(listener.heldRequests.isEmpty());
        assertEquals(0, clock.totalSleptMillis());
    }

    @Test
    void theModeSwitchesAtRunTimeAndAPolicysOwnModeWins() throws Exception {
        RetryEngine engine = engine(Policy.DEFAULTS, Mode.OBSERVE);
        Call observed = engine.open("portal.example", 443, true);
        observed.awaitTurn();
        assertFalse(observed.answersRefusal(503), "the client's own retry of a refusal stays the client's");
        assertFalse(observed.onResponse(503, "0"));
        observed.endAttempt();

        engine.switchMode(Mode.ENFORCE);
        Call enforced = engine.open("portal.example", 443, true);
        enforced.awaitTurn();
        assertTrue(enforced.answersRefusal(503));
        assertTrue(enforced.onResponse(503, "0"), "refusals are retried from the switch on");
        enforced.endAttempt();
        enforced.awaitTurn();
        assertTrue(clock.totalSleptMillis() >= 1_000, "and waited out");
        enforced.onResponse(200, null);
        enforced.endAttempt();

        RetryEngine pinned = engine(Policy.builder().mode(Mode.ENFORCE).build(), Mode.OBSERVE);
        Call call = pinned.open("portal.example", 443, true);
        call.awaitTurn();
        assertTrue(call.onResponse(429, "0"), "policy mode = enforce wins over the engine's observe");
        call.endAttempt();
    }

    /** A request queued at the cap under enforce is let go once the host observes: it must not wait for ever. */
    @Test
    void switchingToObserveLetsGoARequestQueuedAtTheCap() throws Exception {
        RetryEngine engine = engine(Policy.builder().maxConcurrency(1).build(), Mode.ENFORCE);
        Call holder = engine.open("portal.example", 443, true);
        holder.awaitTurn();
        Call queued = engine.open("portal.example", 443, true);
        CompletableFuture<Void> queuedTurn = queued.turn();
        assertFalse(queuedTurn.isDone(), "enforce: the cap of one holds it back");

        engine.switchMode(Mode.OBSERVE);
        Call observed = engine.open("portal.example", 443, true);
        observed.awaitTurn(); // past the cap, as observe mode goes
        observed.endAttempt();
        queuedTurn.get(5, java.util.concurrent.TimeUnit.SECONDS); // before the fix: a release over the cap freed it, never handed on
        queued.endAttempt();
        holder.endAttempt();
        assertEquals(0, engine.hosts().iterator().next().snapshot(engine.now()).inFlight, "every permit back");
    }
}
