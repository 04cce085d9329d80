package dev.retryafter.agent.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostPermitsTest {

    @Test
    void permitsAreGrantedInArrivalOrder() {
        HostPermits permits = new HostPermits(1, Runnable::run);
        assertTrue(permits.acquire().isDone());
        List<CompletableFuture<Void>> waiters = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waiters.add(permits.acquire());
        }
        for (int i = 0; i < 5; i++) {
            assertFalse(waiters.get(i).isDone());
            permits.release();
            assertTrue(waiters.get(i).isDone(), "waiter " + i + " is next");
            for (int j = i + 1; j < 5; j++) {
                assertFalse(waiters.get(j).isDone());
            }
        }
    }

    @Test
    void aNewcomerQueuesBehindWaitersEvenWhenAPermitIsFree() {
        HostPermits permits = new HostPermits(1, Runnable::run);
        permits.acquire();
        CompletableFuture<Void> first = permits.acquire();
        permits.release();
        assertTrue(first.isDone());
        assertEquals(1, permits.inUse());
    }

    @Test
    void aCancelledWaiterIsSkipped() {
        HostPermits permits = new HostPermits(1, Runnable::run);
        permits.acquire();
        CompletableFuture<Void> gone = permits.acquire();
        CompletableFuture<Void> next = permits.acquire();
        gone.cancel(false);
        permits.release();
        assertTrue(next.isDone() && !next.isCompletedExceptionally());
        permits.release();
        assertTrue(permits.isIdle());
    }

    @Test
    void anInterruptedBlockingAcquireLeavesTheQueue() throws Exception {
        HostPermits permits = new HostPermits(1, Runnable::run);
        permits.acquire();
        Thread waiter = new Thread(() -> {
            try {
                permits.await(permits.acquire());
            } catch (InterruptedException expected) {
                // leaves the queue
            }
        });
        waiter.start();
        while (waiter.getState() != Thread.State.WAITING) {
            Thread.sleep(1);
        }
        waiter.interrupt();
        waiter.join(5_000);
        assertFalse(waiter.isAlive(), "the interrupt ended its wait");
        permits.release();
        assertTrue(permits.isIdle(), "the interrupted waiter must not hold or wait for a permit");
    }

    @Test
    void anUncontendedAcquireSharesOneGrantedFuture() {
        HostPermits permits = new HostPermits(2, Runnable::run);
        CompletableFuture<Void> first = permits.acquire();
        assertTrue(first.isDone());
        assertSame(first, permits.acquire(), "the happy path allocates no future");
        permits.release();
        permits.release();
        assertTrue(permits.isIdle());
    }

    @Test
    void retireRefusesWhilePermitsAreHeldAndAfterwardsNothingIsGranted() {
        HostPermits permits = new HostPermits(1, Runnable::run);
        permits.acquire();
        CompletableFuture<Void> waiter = permits.acquire();
        assertFalse(permits.retireIfIdle(), "a permit held, a waiter queued");
        permits.release();
        assertTrue(waiter.isDone());
        assertFalse(permits.retireIfIdle(), "the waiter holds it now");
        permits.release();
        assertTrue(permits.retireIfIdle());
        assertTrue(permits.isRetired());
        assertNull(permits.acquire());
        assertNull(permits.acquireUncapped());
        assertTrue(permits.isIdle());
    }

    @Test
    void aHigherCapLetsWaitersInThroughTheHandOverExecutor() {
        List<Runnable> handOvers = new ArrayList<>();
        HostPermits permits = new HostPermits(1, handOvers::add);
        permits.acquire();
        CompletableFuture<Void> first = permits.acquire();
        CompletableFuture<Void> second = permits.acquire();
        CompletableFuture<Void> third = permits.acquire();
        permits.resize(3);
        assertFalse(first.isDone(), "not granted on the reloading thread");
        assertEquals(2, handOvers.size());
        handOvers.forEach(Runnable::run);
        assertTrue(first.isDone() && second.isDone());
        assertFalse(third.isDone(), "the new cap is full");
        assertEquals(3, permits.inUse());
        assertEquals(3, permits.max());
    }

    @Test
    void aLowerCapTakesNothingBackAndAReleaseOverItFreesThePermit() {
        HostPermits permits = new HostPermits(2, Runnable::run);
        permits.acquire();
        permits.acquire();
        CompletableFuture<Void> waiter = permits.acquire();
        permits.resize(1);
        assertEquals(2, permits.inUse());
        permits.release();
        assertFalse(waiter.isDone(), "over the new cap: freed, not handed on");
        assertEquals(1, permits.inUse());
        permits.release();
        assertTrue(waiter.isDone());
        assertEquals(1, permits.inUse());
    }

    @Test
    void anUncappedPermitOverTheCapIsFreedNotHandedOn() {
        HostPermits permits = new HostPermits(1, Runnable::run);
        assertNotSame(HostPermits.GRANTED_OVER_CAP, permits.acquireUncapped());
        assertSame(HostPermits.GRANTED_OVER_CAP, permits.acquireUncapped());
        CompletableFuture<Void> waiter = permits.acquire();
        assertSame(HostPermits.GRANTED_OVER_CAP, permits.acquireUncapped(), "would have queued behind the waiter");
        permits.release();
        permits.release();
        assertFalse(waiter.isDone());
        permits.release();
        assertTrue(waiter.isDone());
        permits.release();
        assertTrue(permits.isIdle());
    }

    @Test
    void admitAllWaitersLetsEveryWaiterInPastTheCap() {
        HostPermits permits = new HostPermits(1, Runnable::run);
        permits.acquire();
        List<CompletableFuture<Void>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiters.add(permits.acquire());
        }
        waiters.get(1).cancel(false);
        permits.admitAllWaiters();
        assertTrue(waiters.get(0).isDone() && waiters.get(2).isDone());
        assertEquals(3, permits.inUse(), "the cancelled waiter took none");
        for (int i = 0; i < 3; i++) {
            permits.release();
        }
        assertTrue(permits.isIdle());
    }
}
