package dev.retryafter.agent.engine;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;

/**
 * A fair cap on requests in flight to one host. One queue serves blocking and asynchronous callers
 * alike: a permit is a future, granted in arrival order. No lock is held while anyone waits.
 *
 * <p>Handing a permit over completes the waiter's future, which runs its continuation on the
 * releasing thread; a continuation that ends its attempt at once releases again. Done by recursion,
 * 5,000 such waiters overflowed the stack and left the host blocked for good. So a release that
 * happens inside a hand-over on the same thread is passed to {@code handOvers} instead: the stack
 * holds at most one hand-over, and nothing waits for a thread that is busy further up its own stack.
 * An executor that runs it at once (a synchronous {@link Delays}), or none that takes it, leaves it
 * queued on this thread for the hand-over further up to do next.
 */
final class HostPermits {

    /** Shared by every uncontended acquire: the happy path allocates nothing here. */
    private static final CompletableFuture<Void> GRANTED = CompletableFuture.completedFuture(null);
    /** Granted by {@link #acquireUncapped()} where {@link #acquire()} would have queued. */
    static final CompletableFuture<Void> GRANTED_OVER_CAP = CompletableFuture.completedFuture(null);

    /** Set while this thread completes a waiter's future, for any host: the hand-overs it is to do next. */
    private static final ThreadLocal<ArrayDeque<Runnable>> HANDING_OVER = new ThreadLocal<>();

    /** Guarded by this: a reload may change it while permits are held. */
    private int max;
    private final Executor handOvers;
    private int inUse;
    /** Written under this lock, read without it: every request's lookup asks. */
    private volatile boolean retired;
    private ArrayDeque<CompletableFuture<Void>> waiters;

    HostPermits(int max, Executor handOvers) {
        this.max = max;
        this.handOvers = handOvers;
    }

    /**
     * A future completed when the permit is granted. Cancel it to leave the queue; if the cancel
     * fails, the permit was granted and must be released. Null once the store has retired this
     * host: the caller looks the host up again.
     */
    CompletableFuture<Void> acquire() {
        synchronized (this) {
            if (retired) {
                return null;
            }
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

    /**
     * A permit at once, whatever the cap: observe mode counts requests in flight without holding
     * any back. {@link #GRANTED_OVER_CAP} when {@link #acquire()} would have queued. Released as
     * any other; a release that leaves the host over its cap frees the permit rather than hand it
     * to a waiter. Null once retired, as for {@link #acquire()}.
     */
    synchronized CompletableFuture<Void> acquireUncapped() {
        if (retired) {
            return null;
        }
        boolean wouldQueue = inUse >= max || (waiters != null && !waiters.isEmpty());
        inUse++;
        return wouldQueue ? GRANTED_OVER_CAP : GRANTED;
    }

    /**
     * A new cap, from a reloaded policy. It applies to acquisitions from now on: a higher one lets
     * waiters in at once (through {@code handOvers}, not on the reloading thread); a lower one
     * takes no permit back, and releases free permits until the host is under it again.
     */
    void resize(int newMax) {
        synchronized (this) {
            max = newMax;
        }
        admitWaiters(false);
    }

    /**
     * Lets every waiter in now, past the cap: its host went to observe mode, where a release over
     * the cap frees its permit rather than hand it on, so a waiter queued before would wait for ever.
     */
    void admitAllWaiters() {
        admitWaiters(true);
    }

    private void admitWaiters(boolean pastTheCap) {
        java.util.List<CompletableFuture<Void>> admitted = new java.util.ArrayList<>();
        synchronized (this) {
            while ((pastTheCap || inUse < max) && waiters != null && !waiters.isEmpty()) {
                CompletableFuture<Void> next = waiters.poll();
                if (!next.isCancelled()) {
                    inUse++;
                    admitted.add(next);
                }
            }
        }
        for (CompletableFuture<Void> waiter : admitted) {
            try {
                handOvers.execute(() -> grantOrRelease(waiter));
            } catch (RuntimeException rejected) {
                grantOrRelease(waiter);
            }
        }
    }

    private void grantOrRelease(CompletableFuture<Void> waiter) {
        if (!waiter.complete(null)) {
            release(); // cancelled meanwhile: the permit goes on to the next
        }
    }

    synchronized int max() {
        return max;
    }

    /** Blocks until {@code permit}, from {@link #acquire()}, is granted; an interrupt leaves the queue (or hands the permit back) and is rethrown. */
    void await(CompletableFuture<Void> permit) throws InterruptedException {
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
        CompletableFuture<Void> next = nextWaiterOrFree();
        if (next != null) {
            handOver(next);
        }
    }

    private void handOver(CompletableFuture<Void> first) {
        if (HANDING_OVER.get() != null) {
            try {
                handOvers.execute(() -> handOverHere(first));
                return;
            } catch (RuntimeException rejected) {
                // No executor to take it: queued for this thread's hand-over further up, not lost.
            }
        }
        handOverHere(first);
    }

    /** Hands {@code first} over on this thread, or, inside a hand-over here already, queues it for that one. */
    private void handOverHere(CompletableFuture<Void> first) {
        ArrayDeque<Runnable> queued = HANDING_OVER.get();
        if (queued != null) {
            queued.add(() -> passOn(first));
            return;
        }
        queued = new ArrayDeque<>();
        HANDING_OVER.set(queued);
        try {
            passOn(first);
            for (Runnable next = queued.poll(); next != null; next = queued.poll()) {
                next.run();
            }
        } finally {
            HANDING_OVER.remove();
        }
    }

    private void passOn(CompletableFuture<Void> first) {
        CompletableFuture<Void> next = first;
        // Completing runs the waiter's continuation, outside the lock. A waiter cancelled after it
        // was polled did not take the permit: pass it on, in this loop, not by recursion.
        while (next != null && !next.complete(null)) {
            next = nextWaiterOrFree();
        }
    }

    /** The next live waiter, now owning the released permit; null when the permit was freed instead. */
    private synchronized CompletableFuture<Void> nextWaiterOrFree() {
        if (inUse > max) {
            inUse--; // over the cap (observe mode, or a cap lowered by a reload): nobody may take this one
            return null;
        }
        CompletableFuture<Void> next;
        do {
            next = waiters == null ? null : waiters.poll();
        } while (next != null && next.isCancelled());
        if (next == null) {
            inUse--;
        }
        return next;
    }

    /** Retires these permits if nobody holds or waits for one: afterwards {@link #acquire()} returns null. */
    synchronized boolean retireIfIdle() {
        if (isIdle()) {
            retired = true;
        }
        return retired;
    }

    boolean isRetired() {
        return retired;
    }

    synchronized int inUse() {
        return inUse;
    }

    synchronized boolean isIdle() {
        return inUse == 0 && (waiters == null || waiters.isEmpty());
    }
}
