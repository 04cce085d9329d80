package dev.retryafter.agent.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
}
