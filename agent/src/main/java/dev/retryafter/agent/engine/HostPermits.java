package dev.retryafter.agent.engine;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * A fair cap on requests in flight to one host. One queue serves blocking and asynchronous callers
 * alike: a permit is a future, granted in arrival order. No lock is held while anyone waits.
 */
final class HostPermits {

    /** Shared by every uncontended acquire: the happy path allocates nothing here. */
    private static final CompletableFuture<Void> GRANTED = CompletableFuture.completedFuture(null);

    private final int max;
    private int inUse;
    private ArrayDeque<CompletableFuture<Void>> waiters;

    HostPermits(int max) {
        this.max = max;
    }

    /**
     * A future completed when the permit is granted. Cancel it to leave the queue; if the cancel
     * fails, the permit was granted and must be released.
     */
    CompletableFuture<Void> acquire() {
        synchronized (this) {
            if (inUse < max && (waiters == null || waiters.isEmpty())) {
                inUse++;
                return GRANTED;
            }
            if (waiters == null) {
                waiters = new ArrayDeque<>();
            }
            CompletableFuture<Void> waiter = new CompletableFuture<>();
            waiters.add(waiter);
            return waiter;
        }
    }

    /** Blocks until granted; an interrupt leaves the queue (or hands the permit back) and is rethrown. */
    void acquireBlocking() throws InterruptedException {
        CompletableFuture<Void> permit = acquire();
        if (permit.isDone()) {
            return;
        }
        try {
            permit.get();
        } catch (InterruptedException e) {
            if (!permit.cancel(false)) {
                release();
            }
            throw e;
        } catch (ExecutionException e) {
            throw new IllegalStateException("a permit is never completed exceptionally", e);
        }
    }

    void release() {
        CompletableFuture<Void> next;
        synchronized (this) {
            do {
                next = waiters == null ? null : waiters.poll();
            } while (next != null && next.isCancelled());
            if (next == null) {
                inUse--;
                return;
            }
        }
        // Hand the permit over outside the lock: completing runs the waiter's continuation.
        if (!next.complete(null)) {
            release(); // cancelled after it was polled: pass the permit on
        }
    }

    synchronized int inUse() {
        return inUse;
    }

    synchronized boolean isIdle() {
        return inUse == 0 && (waiters == null || waiters.isEmpty());
    }
}
