package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.knowledge.InMemoryKnowledgeStore;

import dev.retryafter.agent.testing.RecordingListener;
import dev.retryafter.agent.testing.VirtualClock;
import dev.retryafter.agent.testing.VirtualScheduler;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine says why each wait happened, as it asks for it: a refusal's wait by the refusal's
 * reason, the pace, the queue at the cap, the rate-limit hints; told per turn to the listener and
 * counted per host by cause. Blocking and asynchronous turns alike, in virtual time.
 */
class WaitCausesTest {

    private final VirtualClock clock = new VirtualClock();
    private final VirtualScheduler scheduler = new VirtualScheduler(clock);
    private final RecordingListener listener = new RecordingListener();

    private RetryEngine engine(Policy policy, Mode mode) {
        return RetryEngine.builder().clock(clock).sleeper(clock).delays(scheduler).random(() -> 0.5).mode(mode)
                .listener(listener).policies(PolicyLookup.everyHost(policy)).build();
    }

    private static String parts(WaitedTurn turn) {
        StringBuilder text = new StringBuilder();
        for (Wait part : turn.parts()) {
            text.append(text.length() == 0 ? "" : ", ").append(part.reason()).append(' ').append(part.millis());
        }
        return text.toString();
    }

    @Test
    void aRefusalsWaitIsNamedByTheRefusalsReason() throws Exception {
        RetryEngine engine = engine(Policy.DEFAULTS, Mode.ENFORCE);
        Call refused = engine.open("portal.example", 443, true);
        refused.awaitTurn();
        assertTrue(refused.onResponse(429, "30"));
        Reason reason = refused.lastDecision().waitBeforeNextRequest().reason();
        long wait = refused.lastDecision().waitBeforeNextRequest().millis();
        refused.endAttempt();
        assertTrue(listener.turnsWaited.isEmpty(), "the first turn went at once: nothing told");

        refused.awaitTurn();
        assertEquals(List.of(reason + " " + wait), Arrays.asList(parts(listener.turnsWaited.get(0))));
        HostSnapshot s = refused.host().snapshot(clock.millis());
        assertEquals(wait, s.waitedByCause.millis(reason));
        assertEquals(List.of(reason), s.waitedByCause.causes());
    }

    @Test
    void aPaceWaitIsThePace() throws Exception {
        RetryEngine engine = engine(Policy.builder().startRatePerSecond(1).build(), Mode.ENFORCE);
        for (int i = 0; i < 3; i++) {
            Call call = engine.open("portal.example", 443, true);
            call.awaitTurn();
            call.onResponse(200, null);
            call.endAttempt();
        }
        assertEquals(2, listener.turnsWaited.size());
        for (WaitedTurn turn : listener.turnsWaited) {
            assertEquals(Reason.PACE, turn.mainCause(), parts(turn));
            assertEquals(turn.totalMillis(), turn.millis(Reason.PACE));
        }
        HostSnapshot s = engine.hosts().iterator().next().snapshot(clock.millis());
        assertEquals(List.of(Reason.PACE), s.waitedByCause.causes());
        assertEquals(s.waitedMillis, s.waitedByCause.millis(Reason.PACE));
    }

    /** What the agent used to count as queue from outside the engine: an asynchronous turn handed its permit on another thread. */
    @Test
    void anAsynchronousTurnQueuedAtTheCapThenPacedIsCountedAsEach() {
        RetryEngine engine = engine(Policy.builder().maxConcurrency(1).startRatePerSecond(1).build(), Mode.ENFORCE);
        Call holder = engine.open("portal.example", 443, true);
        holder.turn().join(); // goes now; the next slot is a second away
        Call queued = engine.open("portal.example", 443, true);
        CompletableFuture<Void> turn = queued.turn();
        assertFalse(turn.isDone(), "queued for the one permit");
        clock.advance(300);
        holder.onResponse(200, null);
        holder.endAttempt(); // hands the permit over: 300 ms queued, 700 ms of the pace to go
        scheduler.run(Long.MAX_VALUE);
        assertTrue(turn.isDone());
        assertEquals(1, listener.turnsWaited.size());
        assertEquals("QUEUE_AT_CAP 300, PACE 700", parts(listener.turnsWaited.get(0)));
        HostSnapshot s = queued.host().snapshot(clock.millis());
        assertEquals(300, s.waitedByCause.millis(Reason.QUEUE_AT_CAP));
        assertEquals(700, s.waitedByCause.millis(Reason.PACE));
        assertEquals(700, s.waitedMillis, "the slept time leaves the queue out, as ever");
    }

    @Test
    void aTurnBookedForThePaceThatARefusalOvertakesWaitsForEachInTurn() {
        RetryEngine engine = engine(Policy.builder().startRatePerSecond(1).build(), Mode.ENFORCE);
        Call first = engine.open("portal.example", 443, true);
        first.turn().join();
        Call booked = engine.open("portal.example", 443, true);
        CompletableFuture<Void> bookedTurn = booked.turn(); // a second from now, by the pace
        assertTrue(first.onResponse(429, "5"));
        Wait refusal = first.lastDecision().waitBeforeNextRequest();
        first.endAttempt();
        scheduler.run(Long.MAX_VALUE);
        assertTrue(bookedTurn.isDone());
        WaitedTurn turn = listener.turnsWaited.get(0);
        assertEquals(Reason.PACE, turn.parts().get(0).reason(), parts(turn));
        assertEquals(1_000, turn.parts().get(0).millis(), parts(turn));
        assertEquals(refusal.reason(), turn.parts().get(1).reason(), parts(turn));
        assertEquals(refusal.millis() - 1_000, turn.refusalMillis(), parts(turn));
    }

    @Test
    void aMomentSetByAnotherJvmsRefusalIsARefusalWait() throws Exception {
        InMemoryKnowledgeStore store = new InMemoryKnowledgeStore();
        RetryEngine engine = RetryEngine.builder().clock(clock).sleeper(clock).listener(listener).knowledge(store)
                .policies(PolicyLookup.everyHost(Policy.DEFAULTS)).build();
        Call call = engine.open("portal.example", 443, true);
        call.awaitTurn();
        call.onResponse(200, null);
        call.endAttempt();
        // As a fleet's store would say it: a moment this JVM's refusals did not set.
        store.imposeNotBefore("portal.example:443", clock.millis() + 2_000);
        call.awaitTurn();
        assertEquals("REFUSAL_WAIT 2000", parts(listener.turnsWaited.get(0)));
    }

    @Test
    void observeModeSaysWhatEachWouldBeWaitWouldHaveBeenFor() throws Exception {
        RetryEngine engine = engine(Policy.DEFAULTS, Mode.OBSERVE);
        Call refused = engine.open("portal.example", 443, true);
        refused.awaitTurn();
        refused.onResponse(429, "30");
        Wait refusal = refused.lastDecision().waitBeforeNextRequest();
        refused.endAttempt();
        refused.awaitTurn();
        HostSnapshot s = refused.host().snapshot(clock.millis());
        assertEquals(refusal.millis(), s.observed.delayByCause.millis(refusal.reason()));
        assertTrue(listener.turnsWaited.isEmpty(), "observe mode waits for nothing");
    }
}
