package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.decide.Decide;

import dev.retryafter.agent.testing.RecordingListener;
import dev.retryafter.agent.testing.VirtualClock;
import dev.retryafter.agent.testing.VirtualScheduler;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CallTest {

    /** A 2 s window, as configured: the streak is no quota, so the last refusal is the application's. */
    @Test
    void afterMaxAttemptsTheLastRefusalGoesBack() throws Exception {
        EngineFixture f = new EngineFixture(Policy.builder().maxAttempts(3).windowMillis(2_000).build());
        Call call = f.engine.open("portal.example", 443, true);
        int sent = 0;
        do {
            call.awaitTurn();
            sent++;
            call.onResponse(429, "0");
            call.endAttempt();
        } while (call.retryRequested());
        assertEquals(3, sent);
        assertEquals(Decision.Outcome.GIVE_UP, call.lastDecision().outcome());
        assertEquals(3, call.lastDecision().attempt());
        assertEquals(1, f.host().snapshot(f.clock.millis()).gaveUp);
    }

    /**
     * Refused on every attempt with nothing let through: the last try waits until the streak is a quota's
     * age, and its refusal holds the host; the request then fails fast with the hold, as every other of it,
     * instead of handing back a refusal that loses its record. Nothing more is sent for it.
     */
    @Test
    void aLastRefusalThatHoldsTheHostFailsFastInsteadOfGoingBack() throws Exception {
        Policy policy = Policy.builder().maxAttempts(3).build();
        EngineFixture f = new EngineFixture(policy);
        Call call = f.engine.open("portal.example", 443, true);
        long start = f.clock.millis();
        int sent = 0;
        HostHeldException held = null;
        try {
            do {
                call.awaitTurn();
                sent++;
                call.onResponse(429, null);
                call.endAttempt();
            } while (call.retryRequested());
        } catch (HostHeldException e) {
            held = e;
        }
        assertEquals(3, sent);
        assertNotNull(held, "the last refusal held the host: the request fails fast with it");
        assertEquals(Reason.HOLD_WINDOW_NOT_FOUND, call.lastDecision().waitBeforeNextRequest().reason());
        assertEquals(3, call.lastDecision().attempt());
        assertEquals(policy.windowMillis(), f.clock.millis() - start, 1_000, "the last try went at the policy's window's end");
        assertEquals(start + Decide.persistsAfterMillis(policy), call.lastDecision().holdUntil().getAsLong(), 1_000,
                "refused there, the host is held until the streak is a quota's age");
        assertEquals(0, f.host().snapshot(f.clock.millis()).gaveUp);
    }

    /** The JDK path asks twice (the handler, then the loop): a listener that fails in between must not split the answer. */
    @Test
    void aListenerThatThrowsLeavesNoRetryRequested() throws Exception {
        VirtualClock clock = new VirtualClock();
        RetryEngine engine = RetryEngine.builder().clock(clock).sleeper(clock).policies(PolicyLookup.everyHost(Policy.DEFAULTS))
                .listener(new DecisionListener() {
                    @Override
                    public void onRefusal(HostState host, Decision decision) {
                        throw new IllegalStateException("a logger that fails");
                    }

                    @Override
                    public void onRecharacterised(HostState host, CharacterisationChange change) {
                    }

                    @Override
                    public void onHeldRequest(HostState host, HostHeldException failure) {
                    }
                }).build();
        Call call = engine.open("portal.example", 443, true);
        call.awaitTurn();
        assertThrows(IllegalStateException.class, () -> call.onResponse(429, "0"));
        assertFalse(call.retryRequested(), "the caller handed the refusal back; the loop must not resend");
        call.endAttempt();
    }

    @Test
    void aBodyThatCannotBeSentTwiceIsNotRetried() throws Exception {
        EngineFixture f = new EngineFixture(Policy.DEFAULTS);
        Call call = f.engine.open("portal.example", 443, false);
        call.awaitTurn();
        assertFalse(call.onResponse(429, "2"));
        assertEquals(Decision.Outcome.NOT_REPLAYABLE, call.lastDecision().outcome());
        assertTrue(call.lastDecision().toString().contains("cannot be sent twice"), call.lastDecision().toString());
    }

    @Test
    void retryAfterOnASuccessOrARedirectIsIgnored() throws Exception {
        EngineFixture f = new EngineFixture(Policy.DEFAULTS);
        for (int status : new int[] {200, 201, 204, 301, 302, 307}) {
            Call call = f.engine.open("portal.example", 443, true);
            call.awaitTurn();
            assertFalse(call.onResponse(status, "120"));
            call.endAttempt();
            assertNull(call.lastDecision());
        }
        assertEquals(0, f.clock.totalSleptMillis(), "a healthy path never sleeps");
        assertEquals(0, f.listener.decisions.size());
    }

    @Test
    void onlyRetryStatusesAreRefusals() throws Exception {
        EngineFixture f = new EngineFixture(Policy.builder().retryStatuses(429).build());
        Call call = f.engine.open("portal.example", 443, true);
        call.awaitTurn();
        assertFalse(call.onResponse(503, "5"), "503 is not a refusal under this policy");
        assertNull(call.lastDecision());
    }

    @Test
    void everyLaterRequestToTheHostWaitsOutARefusal() throws Exception {
        EngineFixture f = new EngineFixture(Policy.DEFAULTS);
        Call refused = f.engine.open("portal.example", 443, false);
        refused.awaitTurn();
        refused.onResponse(429, "30");
        refused.endAttempt();
        long refusedAt = f.clock.millis();

        Call another = f.engine.open("PORTAL.example", 443, true);
        another.awaitTurn();
        assertEquals(refusedAt + 30_000, f.clock.millis(), "another caller obeys the same sanitised wait");
        Call otherPort = f.engine.open("portal.example", 8443, true);
        otherPort.awaitTurn();
        assertEquals(refusedAt + 30_000, f.clock.millis(), "another port is another host");
    }

    @Test
    void thePaceNeverSpacesRequestsFurtherApartThanMaxSleep() throws Exception {
        // One request a minute is the learned limit, but max-sleep is 200 ms: no wait may be longer.
        EngineFixture f = new EngineFixture(Policy.builder().minSleepMillis(100).maxSleepMillis(200).build());
        Call first = f.engine.open("slow.example", 443, true);
        first.awaitTurn();
        first.onResponse(200, null);
        first.endAttempt();
        Call refused = f.engine.open("slow.example", 443, true);
        refused.awaitTurn();
        refused.onResponse(429, "60");
        refused.endAttempt();
        assertTrue(f.host().snapshot(f.clock.millis()).pacePerSecond < 1.0 / 60, "a slow pace was learned");
        for (int i = 0; i < 5; i++) {
            long before = f.clock.millis();
            Call next = f.engine.open("slow.example", 443, true);
            next.awaitTurn();
            next.endAttempt();
            assertTrue(f.clock.millis() - before <= 200, "waited " + (f.clock.millis() - before) + " ms");
        }
    }

    @Test
    void callersQueuedBehindALongWaitNeverWaitLongerThanMaxSleep() throws Exception {
        dev.retryafter.agent.testing.VirtualClock clock = new dev.retryafter.agent.testing.VirtualClock();
        VirtualScheduler scheduler = new VirtualScheduler(clock);
        RetryEngine engine = RetryEngine.builder().clock(clock).delays(scheduler).random(() -> 0.5)
                .policies(PolicyLookup.everyHost(Policy.builder().startRatePerSecond(0.3).windowMillis(600_000)
                        .pinnedCategory(Category.TRUTHFUL).build())).build();
        Call refused = engine.open("portal.example", 443, true);
        refused.turn().join();
        // a truthful 3600: wait the 300 s ceiling (an unproven one is not waited on at all)
        refused.onResponse(429, "3600");
        refused.endAttempt();
        long start = clock.millis();
        List<CompletableFuture<Void>> queued = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            queued.add(engine.open("portal.example", 443, true).turn());
        }
        queued.add(refused.turn());
        List<Long> wentAt = new ArrayList<>();
        queued.forEach(turn -> turn.thenRun(() -> wentAt.add(clock.millis() - start)));
        scheduler.run(Long.MAX_VALUE);
        assertEquals(8, wentAt.size());
        assertTrue(wentAt.stream().allMatch(t -> t >= 300_000 && t <= 300_000), "all went at the ceiling: " + wentAt);
    }

    @Test
    void aNewCallStartsItsOwnAttemptCount() throws Exception {
        EngineFixture f = new EngineFixture(Policy.builder().maxAttempts(2).build());
        for (int i = 0; i < 3; i++) {
            Call call = f.engine.open("portal.example", 443, true);
            call.awaitTurn();
            call.onResponse(429, "1");
            call.endAttempt();
            assertEquals(1, call.lastDecision().attempt());
            assertTrue(call.retryRequested());
        }
    }

    @Test
    void interruptingAWaitingThreadEndsItsWaitAtOnceAndKeepsTheFlag() throws Exception {
        Call refused = refusedFor500Seconds();
        BlockedTurn waiter = BlockedTurn.of(refused, Thread.State.TIMED_WAITING);
        waiter.thread.interrupt();
        assertTrue(waiter.done.await(5, TimeUnit.SECONDS), "the wait ended at the interrupt, not at its end");
        assertTrue(waiter.thrown.get() instanceof InterruptedException, String.valueOf(waiter.thrown.get()));
        assertTrue(waiter.interrupted.get(), "the interrupt flag is kept");
        assertTrue(refused.host().permits().isIdle(), "the permit went back");
        assertEquals(1, refused.host().snapshot(0).endedWhileWaiting, "counted as ended by the application while it waited");
    }

    /** A cancel from another thread (OkHttp's cancel() or call timeout) ends a blocking wait at once, no interrupt needed. */
    @Test
    void abandoningACallEndsItsBlockingWaitAtOnce() throws Exception {
        Call refused = refusedFor500Seconds();
        BlockedTurn waiter = BlockedTurn.of(refused, Thread.State.TIMED_WAITING);
        refused.abandon();
        assertTrue(waiter.done.await(5, TimeUnit.SECONDS), "the wait ended at the cancel, not at its end");
        assertTrue(waiter.thrown.get() instanceof CancellationException, String.valueOf(waiter.thrown.get()));
        assertFalse(waiter.interrupted.get(), "the thread was not interrupted");
        assertTrue(refused.host().permits().isIdle(), "the permit went back");
        assertEquals(1, refused.host().snapshot(0).endedWhileWaiting, "counted as ended by the application while it waited");
    }

    /** A blocking turn queued behind the host's cap ends at the cancel too, and takes no permit later. */
    @Test
    void abandoningACallQueuedForAPermitEndsItsWaitAtOnce() throws Exception {
        RetryEngine engine = RetryEngine.builder().policies(PolicyLookup.everyHost(Policy.builder().maxConcurrency(1).build())).build();
        Call holder = engine.open("portal.example", 443, true);
        holder.turn().join();
        Call queued = engine.open("portal.example", 443, true);
        BlockedTurn waiter = BlockedTurn.of(queued, Thread.State.WAITING);
        queued.abandon();
        assertTrue(waiter.done.await(5, TimeUnit.SECONDS), "the wait ended at the cancel, not when the permit came");
        assertTrue(waiter.thrown.get() instanceof CancellationException, String.valueOf(waiter.thrown.get()));
        holder.endAttempt();
        assertTrue(holder.host().permits().isIdle(), "the abandoned waiter took no permit");
    }

    /** A call in real time whose next turn waits out a 500 s Retry-After (max-sleep 600 s). */
    private static Call refusedFor500Seconds() throws Exception {
        RetryEngine engine = RetryEngine.builder().policies(PolicyLookup.everyHost(Policy.builder().maxSleepMillis(600_000).build())).build();
        Call refused = engine.open("slow.example", 443, true);
        refused.awaitTurn();
        refused.onResponse(429, "500");
        refused.endAttempt();
        return refused;
    }

    /** A thread blocked in a call's turn, and how the turn ended: what it threw, and whether the thread was interrupted. */
    private static final class BlockedTurn {
        final AtomicReference<Throwable> thrown = new AtomicReference<>();
        final AtomicBoolean interrupted = new AtomicBoolean();
        final CountDownLatch done = new CountDownLatch(1);
        Thread thread;

        /** Starts the turn on a thread of its own, and returns once the thread blocks in it ({@code state}) or the turn ended. */
        static BlockedTurn of(Call call, Thread.State state) throws InterruptedException {
            BlockedTurn turn = new BlockedTurn();
            turn.thread = new Thread(() -> {
                try {
                    call.awaitTurn();
                } catch (Throwable t) {
                    turn.thrown.set(t);
                    turn.interrupted.set(Thread.currentThread().isInterrupted());
                }
                turn.done.countDown();
            });
            turn.thread.start();
            while (turn.thread.getState() != state && turn.done.getCount() > 0) {
                Thread.sleep(1);
            }
            return turn;
        }
    }

    /** An attempt abandoned in flight leaves the host when its exchange ends: no refusal later reads it as still there. */
    @Test
    void anAttemptAbandonedInFlightLeavesTheHostWhenItEnds() throws Exception {
        RetryEngine engine = RetryEngine.builder().policies(PolicyLookup.everyHost(Policy.DEFAULTS)).build();
        Call sent = engine.open("portal.example", 443, true);
        sent.turn().join();
        assertEquals(1, sent.host().atHost());
        sent.abandon();
        assertEquals(1, sent.host().atHost(), "still at the host until its exchange ends");
        sent.endAttempt();
        assertEquals(0, sent.host().atHost());
        sent.endAttempt();
        assertEquals(0, sent.host().atHost(), "counted once");
    }

    @Test
    void anAsynchronousTurnWaitsWithoutAThread() throws Exception {
        EngineFixture f = new EngineFixture(Policy.DEFAULTS);
        VirtualScheduler scheduler = new VirtualScheduler(f.clock);
        RetryEngine engine = RetryEngine.builder().clock(f.clock).sleeper(millis -> {
            throw new AssertionError("an asynchronous call never sleeps");
        }).delays(scheduler).build();

        Call call = engine.open("portal.example", 443, true);
        call.turn().join();
        long start = f.clock.millis();
        assertTrue(call.onResponse(429, "7"));
        call.endAttempt();
        CompletableFuture<Void> turn = call.turn();
        assertFalse(turn.isDone(), "waiting for the sanitised 7 s");
        scheduler.run(Long.MAX_VALUE);
        assertTrue(turn.isDone());
        assertEquals(start + 7_000, f.clock.millis());
    }

    @Test
    void aTurnBookedBeforeARefusalStillWaitsTheRefusalOut() throws Exception {
        EngineFixture f = new EngineFixture(Policy.DEFAULTS);
        VirtualScheduler scheduler = new VirtualScheduler(f.clock);
        RetryEngine engine = RetryEngine.builder().clock(f.clock).delays(scheduler).random(() -> 0.5)
                .policies(PolicyLookup.everyHost(Policy.builder().startRatePerSecond(1).build())).build();
        Call first = engine.open("portal.example", 443, true);
        first.turn().join();                         // goes now
        Call booked = engine.open("portal.example", 443, true);
        CompletableFuture<Void> bookedTurn = booked.turn(); // booked a second from now by the pace
        long start = f.clock.millis();
        assertTrue(first.onResponse(429, "5"));      // meanwhile, the host refuses: nobody before +5 s
        first.endAttempt();
        scheduler.run(Long.MAX_VALUE);
        assertTrue(bookedTurn.isDone());
        assertTrue(f.clock.millis() >= start + 5_000, "went at +" + (f.clock.millis() - start) + " ms");
    }

    @Test
    void aHostThatKeepsRefusingIsBackedOffFurtherWhoeverAsks() throws Exception {
        // Each new call starts at attempt 1; the host's streak does not start again.
        dev.retryafter.agent.testing.VirtualClock clock = new dev.retryafter.agent.testing.VirtualClock();
        dev.retryafter.agent.testing.RecordingListener listener = new dev.retryafter.agent.testing.RecordingListener();
        // A window of 10 minutes, configured: the backoff is not cut to the window's end, nor to the streak's age.
        RetryEngine engine = RetryEngine.builder().clock(clock).sleeper(clock).random(() -> 0.99).listener(listener)
                .policies(PolicyLookup.everyHost(Policy.builder().windowMillis(600_000).build())).build();
        for (int i = 0; i < 6; i++) {
            Call call = engine.open("portal.example", 443, true);
            call.awaitTurn();
            call.onResponse(429, null);
            call.endAttempt();
            assertEquals(1, call.lastDecision().attempt());
        }
        // The sixth refusal in a row backs off as a sixth attempt would: up to 0.5 s * 2^5.
        assertEquals((long) (0.99 * 16_000), listener.decisions.get(5).waitBeforeNextRequest().millis());
    }

    @Test
    void abandoningATurnFreesItsPlace() throws Exception {
        EngineFixture f = new EngineFixture(Policy.builder().maxConcurrency(1).build());
        VirtualScheduler scheduler = new VirtualScheduler(f.clock);
        RetryEngine engine = RetryEngine.builder().clock(f.clock).delays(scheduler)
                .policies(PolicyLookup.everyHost(Policy.builder().maxConcurrency(1).build())).build();

        Call holder = engine.open("portal.example", 443, true);
        holder.turn().join();
        Call queued = engine.open("portal.example", 443, true);
        CompletableFuture<Void> queuedTurn = queued.turn();
        assertFalse(queuedTurn.isDone());
        queued.abandon();
        holder.endAttempt();

        Call next = engine.open("portal.example", 443, true);
        assertTrue(next.turn().isDone(), "the abandoned waiter neither kept nor blocked the permit");
        next.endAttempt();

        // Abandoned during its wait for the pace: the delay is cancelled and the permit goes back.
        Call refused = engine.open("portal.example", 443, true);
        refused.turn().join();
        refused.onResponse(429, "5");
        refused.endAttempt();
        CompletableFuture<Void> waiting = refused.turn();
        assertFalse(waiting.isDone());
        refused.abandon();
        assertTrue(holder.host().permits().isIdle());
    }

    /**
     * What shows an operator a watchdog shorter than the host's waits: a call the application ends while it waits for
     * its turn is counted for the host and told, once; one ended in flight, or after it was over, is not.
     */
    @Test
    void aCallEndedWhileItWaitsIsCountedOnce() throws Exception {
        RecordingListener told = new RecordingListener();
        RetryEngine engine = RetryEngine.builder().policies(PolicyLookup.everyHost(Policy.builder().maxConcurrency(1).build()))
                .listener(told).build();
        Call sent = engine.open("portal.example", 443, true);
        sent.turn().join();
        Call queued = engine.open("portal.example", 443, true);
        CompletableFuture<Void> waiting = queued.turn();
        assertFalse(waiting.isDone(), "queued behind the cap of 1");
        queued.abandon();
        queued.abandon();                    // a second cancel changes nothing
        sent.abandon();                      // in flight: the application ended an exchange, not a wait
        sent.endAttempt();
        Call over = engine.open("portal.example", 443, true);
        over.turn().join();
        over.onResponse(200, null);
        over.endAttempt();
        over.abandon();                      // a cancel after the request was over
        assertEquals(1, sent.host().snapshot(0).endedWhileWaiting);
        assertEquals(1, told.endedWhileWaiting.size());
    }

    /**
     * Jetty's abort can win the race with a turn that has just come, before the client sends: the request does not go,
     * and it counts as ended while it waited, once; a plain abandon of a call whose turn came does not count it.
     */
    @Test
    void aCallAbandonedUnsentAfterItsTurnCameIsCountedOnce() throws Exception {
        RecordingListener told = new RecordingListener();
        RetryEngine engine = RetryEngine.builder().policies(PolicyLookup.everyHost(Policy.DEFAULTS)).listener(told).build();
        Call unsent = engine.open("portal.example", 443, true);
        unsent.turn().join();
        unsent.abandonUnsent();
        unsent.abandonUnsent();
        unsent.endAttempt();
        Call sent = engine.open("portal.example", 443, true);
        sent.turn().join();
        sent.abandon();
        sent.endAttempt();
        assertEquals(1, unsent.host().snapshot(0).endedWhileWaiting);
        assertEquals(1, told.endedWhileWaiting.size());
        assertTrue(unsent.host().permits().isIdle(), "the permits went back at the attempts' ends");
    }

    /**
     * Apache's cancel aborts the request, then interrupts the thread; an application may interrupt, then abort in a
     * finally: either way one wait ended, counted once. A request failed fast by a hold, then cancelled, waited for
     * nothing; nor does a call the agent withdraws count as the application's.
     */
    @Test
    void aWaitEndedTwoWaysIsCountedOnceAndAFailedTurnNotAtAll() throws Exception {
        Call abortedThenInterrupted = refusedFor500Seconds();
        BlockedTurn first = BlockedTurn.of(abortedThenInterrupted, Thread.State.TIMED_WAITING);
        abortedThenInterrupted.abandon();
        first.thread.interrupt();
        assertTrue(first.done.await(5, TimeUnit.SECONDS));
        assertEquals(1, abortedThenInterrupted.host().snapshot(0).endedWhileWaiting);

        Call interruptedThenAborted = refusedFor500Seconds();
        BlockedTurn second = BlockedTurn.of(interruptedThenAborted, Thread.State.TIMED_WAITING);
        second.thread.interrupt();
        assertTrue(second.done.await(5, TimeUnit.SECONDS));
        interruptedThenAborted.abandon();
        assertEquals(1, interruptedThenAborted.host().snapshot(0).endedWhileWaiting);

        EngineFixture f = new EngineFixture(Policy.builder().maxAttempts(3).build());
        Call held = f.engine.open("portal.example", 443, true);
        assertThrows(HostHeldException.class, () -> {
            do {
                held.awaitTurn();
                held.onResponse(429, null);
                held.endAttempt();
            } while (held.retryRequested());
        });
        held.abandon();
        Call withdrawn = f.engine.open("portal.example", 443, true);
        withdrawn.turn();
        withdrawn.withdraw();
        assertEquals(0, f.host().snapshot(f.clock.millis()).endedWhileWaiting, "nothing the application ended while it waited");
    }

    /** An asynchronous wait the application ends is accounted for what it waited, and told as a turn: the minute line adds up. */
    @Test
    void anAsynchronousWaitEndedByTheApplicationCountsWhatItWaited() throws Exception {
        VirtualClock clock = new VirtualClock();
        VirtualScheduler scheduler = new VirtualScheduler(clock);
        RecordingListener listener = new RecordingListener();
        List<WaitedTurn> told = listener.turnsWaited;
        RetryEngine engine = RetryEngine.builder().clock(clock).delays(scheduler).random(() -> 0.5)
                .policies(PolicyLookup.everyHost(Policy.DEFAULTS)).listener(listener).build();
        Call refused = engine.open("portal.example", 443, true);
        refused.turn().join();
        refused.onResponse(429, "5");
        refused.endAttempt();
        CompletableFuture<Void> waiting = refused.turn();
        assertFalse(waiting.isDone());
        clock.advance(700);
        refused.abandon();
        assertTrue(waiting.isCompletedExceptionally());
        HostSnapshot host = refused.host().snapshot(clock.millis());
        assertEquals(1, host.endedWhileWaiting);
        assertEquals(700, host.waitedByCause.totalMillis(), "what it waited until the application ended it");
        assertEquals(1, told.size());
        assertEquals(700, told.get(0).totalMillis());

        // Queued behind the cap, then ended: what it queued counts too.
        RetryEngine capped = RetryEngine.builder().clock(clock).delays(scheduler).random(() -> 0.5)
                .policies(PolicyLookup.everyHost(Policy.builder().maxConcurrency(1).build())).build();
        Call holder = capped.open("capped.example", 443, true);
        holder.turn().join();
        Call queued = capped.open("capped.example", 443, true);
        CompletableFuture<Void> inQueue = queued.turn();
        clock.advance(400);
        queued.abandon();
        assertTrue(inQueue.isCompletedExceptionally());
        HostSnapshot cappedHost = queued.host().snapshot(clock.millis());
        assertEquals(400, cappedHost.waitedByCause.millis(Reason.QUEUE_AT_CAP));
        assertEquals(1, cappedHost.endedWhileWaiting);
        holder.endAttempt();
        assertTrue(holder.host().permits().isIdle(), "the queued call took no permit");
    }

    @Test
    void anAbandonedAttemptAlreadySentKeepsItsPermitUntilItsExchangeEnds() throws Exception {
        RetryEngine engine = RetryEngine.builder().policies(PolicyLookup.everyHost(Policy.builder().maxConcurrency(1).build())).build();
        Call sent = engine.open("portal.example", 443, true);
        sent.turn().join();                  // the request is on its way
        sent.abandon();                      // the application gave up on it
        assertFalse(sent.host().permits().isIdle(), "still in flight at the host: the cap still counts it");
        sent.endAttempt();                   // its exchange ended, aborted or answered
        assertTrue(sent.host().permits().isIdle());

        Call queued = engine.open("portal.example", 443, true);
        Call holder = engine.open("portal.example", 443, true);
        holder.turn().join();
        CompletableFuture<Void> waiting = queued.turn();
        queued.abandon();                    // never sent: its place in the queue goes at once
        holder.endAttempt();
        assertTrue(failureOf(waiting) instanceof CancellationException, () -> "cancelled, not failed: " + failureOf(waiting));
        assertTrue(holder.host().permits().isIdle());
    }

    @Test
    void manyThreadsOnOneHostNeverExceedItsCap() throws Exception {
        int cap = 3;
        // Real time, with waits of a few milliseconds.
        RetryEngine engine = RetryEngine.builder()
                .policies(PolicyLookup.everyHost(Policy.builder().maxConcurrency(cap).minSleepMillis(1).maxSleepMillis(5)
                        .backoffBaseMillis(1).backoffCapMillis(5).maxAttempts(3).build()))
                .build();
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        AtomicInteger requests = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int t = 0; t < 32; t++) {
            Thread thread = new Thread(() -> {
                try {
                    for (int i = 0; i < 50; i++) {
                        Call call = engine.open("capped.example", 443, true);
                        do {
                            call.awaitTurn();
                            int now = inFlight.incrementAndGet();
                            peak.accumulateAndGet(now, Math::max);
                            Thread.sleep(2); // a request takes a while: enough for others to pile up behind the cap
                            // Refusals only once the cap has surely been reached: a refusal with others in flight
                            // lowers the host's learned cap (LearnedCap), which the policy's cap only bounds.
                            int n = requests.incrementAndGet();
                            boolean refuse = n > 200 && n % 7 == 0;
                            inFlight.decrementAndGet();
                            call.onResponse(refuse ? 429 : 200, refuse ? "0" : null);
                            call.endAttempt();
                        } while (call.retryRequested());
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join(60_000);
            assertFalse(thread.isAlive(), "a worker is stuck");
        }
        assertNull(failure.get());
        assertTrue(peak.get() <= cap, "peak " + peak.get() + " over cap " + cap);
        assertEquals(cap, peak.get(), "the cap was reached, so the test could have failed");
        assertTrue(engine.hosts().iterator().next().permits().isIdle());
    }

    /**
     * Issue 9, item 5: 5,000 asynchronous turns queued on one permit, each of whose continuations
     * ends its attempt at once, as a client that fails synchronously does. Handed over by recursion,
     * the stack overflowed, futures stayed pending for ever and the host stayed blocked.
     */
    @Test
    void thousandsOfTurnsWhoseContinuationsEndAtOnceAllComplete() throws Exception {
        VirtualClock clock = new VirtualClock();
        VirtualScheduler scheduler = new VirtualScheduler(clock);
        RetryEngine engine = RetryEngine.builder().clock(clock).delays(scheduler)
                .policies(PolicyLookup.everyHost(Policy.builder().maxConcurrency(1).build())).build();
        Call holder = engine.open("portal.example", 443, true);
        holder.turn().join();
        int turns = 5_000;
        List<CompletableFuture<Void>> ended = new ArrayList<>();
        for (int i = 0; i < turns; i++) {
            Call call = engine.open("portal.example", 443, true);
            ended.add(call.turn().whenComplete((went, failure) -> call.endAttempt()));
        }
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        // A thread with a pool thread's modest stack: recursion 5,000 hand-overs deep does not fit in it.
        Thread releaser = new Thread(null, () -> {
            try {
                holder.endAttempt();
                scheduler.run(Long.MAX_VALUE);
            } catch (Throwable t) {
                thrown.set(t);
            }
        }, "releaser", 512 * 1024);
        releaser.start();
        releaser.join();
        assertNull(thrown.get());
        long pending = ended.stream().filter(f -> !f.isDone()).count();
        long failed = ended.stream().filter(CompletableFuture::isCompletedExceptionally).count();
        assertEquals(0, pending, "turns pending for ever");
        assertEquals(0, failed, "turns failed");
        assertTrue(holder.host().permits().isIdle(), "the host is not blocked");
        Call later = engine.open("portal.example", 443, true);
        assertTrue(later.turn().isDone(), "a later call goes at once");
        later.endAttempt();
    }

    /**
     * Issue 28, item 9: the same with a synchronous {@link Delays}, whose every wait is over when
     * asked for (virtual time moved on at once). The hand-over meant for "later" ran inside the
     * hand-over itself, recursed until the stack gave out, and 4,999 of 5,000 turns stayed pending.
     */
    @Test
    void thousandsOfTurnsAllCompleteWithASynchronousDelays() throws Exception {
        VirtualClock clock = new VirtualClock();
        Delays synchronous = millis -> {
            clock.advance(millis);
            return CompletableFuture.completedFuture(null);
        };
        RetryEngine engine = RetryEngine.builder().clock(clock).delays(synchronous)
                .policies(PolicyLookup.everyHost(Policy.builder().maxConcurrency(1).build())).build();
        Call holder = engine.open("portal.example", 443, true);
        holder.turn().join();
        int turns = 5_000;
        List<CompletableFuture<Void>> ended = new ArrayList<>();
        for (int i = 0; i < turns; i++) {
            Call call = engine.open("portal.example", 443, true);
            ended.add(call.turn().whenComplete((went, failure) -> call.endAttempt()));
        }
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread releaser = new Thread(null, () -> {
            try {
                holder.endAttempt();
            } catch (Throwable t) {
                thrown.set(t);
            }
        }, "releaser", 512 * 1024);
        releaser.start();
        releaser.join();
        assertNull(thrown.get());
        assertEquals(0, ended.stream().filter(f -> !f.isDone()).count(), "turns pending for ever");
        assertEquals(0, ended.stream().filter(CompletableFuture::isCompletedExceptionally).count(), "turns failed");
        assertTrue(holder.host().permits().isIdle(), "the host is not blocked");
        Call later = engine.open("portal.example", 443, true);
        assertTrue(later.turn().isDone(), "a later call goes at once");
        later.endAttempt();
    }

    /**
     * Issue 9, item 9: a turn never completes normally once abandon() gave its permit back. The
     * clock abandons the call on its k-th reading after the turn began, so abandon() lands at each
     * point of the turn in turn, the points a racing thread could hit.
     */
    @Test
    void aTurnAbandonedAtAnyPointNeverGoesWithoutItsPermit() {
        for (int k = 1; k <= 8; k++) {
            VirtualClock time = new VirtualClock();
            AtomicInteger readsLeft = new AtomicInteger(Integer.MAX_VALUE);
            AtomicReference<Call> toAbandon = new AtomicReference<>();
            Clock clock = () -> {
                if (readsLeft.decrementAndGet() == 0) {
                    toAbandon.get().abandon();
                }
                return time.millis();
            };
            VirtualScheduler scheduler = new VirtualScheduler(time);
            RetryEngine engine = RetryEngine.builder().clock(clock).delays(scheduler)
                    .policies(PolicyLookup.everyHost(Policy.builder().maxConcurrency(1).startRatePerSecond(1).build())).build();
            Call first = engine.open("portal.example", 443, true);
            first.turn().join();
            first.endAttempt();
            Call call = engine.open("portal.example", 443, true); // paced: waits a second for its slot
            toAbandon.set(call);
            readsLeft.set(k);
            CompletableFuture<Void> turn = call.turn();
            scheduler.run(Long.MAX_VALUE);
            assertTrue(turn.isDone(), "k=" + k);
            HostState host = engine.hosts().iterator().next();
            if (turn.isCompletedExceptionally()) {
                assertTrue(host.permits().isIdle(), "k=" + k + ": failed, and the permit went back");
            } else {
                assertEquals(1, host.permits().inUse(), "k=" + k + ": went, so it must still hold its permit");
                call.endAttempt();
                assertTrue(host.permits().isIdle());
            }
        }
    }

    /** What a future failed with, unwrapped; fails the test if it did not fail. */
    static Throwable failureOf(CompletableFuture<?> future) {
        try {
            future.getNow(null);
        } catch (CancellationException e) {
            return e;
        } catch (CompletionException e) {
            return e.getCause();
        }
        throw new AssertionError("the future did not fail");
    }
}
