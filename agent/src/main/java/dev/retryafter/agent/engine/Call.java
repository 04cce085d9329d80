package dev.retryafter.agent.engine;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One request as the application made it, through all its attempts. An adapter drives it:
 * <pre>
 *   do {
 *       call.awaitTurn();                 // or turn(), a future, for asynchronous clients
 *       send, and on the response: call.onResponse(status, retryAfterHeader)
 *       call.endAttempt();
 *   } while (call.retryRequested());
 * </pre>
 * A call belongs to one request; the asynchronous path hands it from stage to stage, never to two
 * threads at once. Only {@link #abandon()} may come from another thread.
 */
public final class Call {

    private static final AtomicIntegerFieldUpdater<Call> PERMIT =
            AtomicIntegerFieldUpdater.newUpdater(Call.class, "permitHeld");
    private static final CompletableFuture<Void> NO_WAIT = CompletableFuture.completedFuture(null);

    private final RetryEngine engine;
    private final HostState host;
    private final boolean replayable;
    private int attempt;
    private long sentAt;
    private Decision lastDecision;

    /** 1 while this call holds one of the host's permits; released exactly once, by whoever gets here first. */
    private volatile int permitHeld;
    private volatile boolean abandoned;
    /** Sent and not yet answered: its permit is the exchange's to give back. */
    private volatile boolean inFlight;
    private volatile CompletableFuture<Void> pendingPermit;
    private volatile CompletableFuture<Void> pendingDelay;

    Call(RetryEngine engine, HostState host, boolean replayable) {
        this.engine = engine;
        this.host = host;
        this.replayable = replayable;
    }

    /**
     * Blocks until this attempt may be sent: a permit under the host's concurrency cap, then its
     * place in the pace, after any wait a refusal imposed. Fails fast while the host is held.
     * An interrupt ends the wait at once; the interrupt flag stays set and InterruptedException is thrown.
     */
    public void awaitTurn() throws HostHeldException, InterruptedException {
        attempt++;
        failIfHeld();
        try {
            host.permits().acquireBlocking();
            permitHeld = 1;
            for (long wait = host.reserveSlot(engine.now()); wait > 0; wait = host.rebookIfRefusedSince(engine.now())) {
                long start = engine.now();
                try {
                    engine.sleeper.sleep(wait);
                } finally {
                    host.onWaited(wait, engine.now() - start);
                }
                failIfHeld(); // a hold that began while this caller waited is not waited out
            }
            failIfHeld();
        } catch (InterruptedException e) {
            releasePermit();
            Thread.currentThread().interrupt();
            throw e;
        } catch (HostHeldException e) {
            releasePermit();
            throw e;
        }
        markSent();
    }

    /**
     * The same turn as {@link #awaitTurn()}, without a thread waiting: the future completes when
     * the attempt may be sent, or fails with {@link HostHeldException}. Every way out but going
     * (held, abandoned, the agent failing) gives the permit back.
     */
    public CompletableFuture<Void> turn() {
        attempt++;
        HostHeldException held = host.heldException(engine.now());
        if (held != null) {
            engine.listener.onHeldRequest(host, held);
            CompletableFuture<Void> refused = new CompletableFuture<>(); // failedFuture is Java 9
            refused.completeExceptionally(held);
            return refused;
        }
        CompletableFuture<Void> permit = host.permits().acquire();
        pendingPermit = permit;
        return permit.thenCompose(granted -> {
            permitHeld = 1;
            failIfAbandoned();
            return waitAsync(host.reserveSlot(engine.now()));
        }).thenRun(() -> {
            failIfAbandoned();
            HostHeldException heldNow = host.heldException(engine.now());
            if (heldNow != null) {
                throw new CompletionException(heldNow);
            }
            markSent();
        }).whenComplete((went, failure) -> {
            if (failure != null) {
                releasePermit();
                HostHeldException heldNow = heldIn(failure);
                if (heldNow != null) {
                    engine.listener.onHeldRequest(host, heldNow);
                }
            }
        });
    }

    /** Waits {@code wait}, then again if a refusal came in meanwhile, without a thread asleep. */
    private CompletableFuture<Void> waitAsync(long wait) {
        if (wait <= 0) {
            return NO_WAIT;
        }
        long start = engine.now();
        CompletableFuture<Void> delay = engine.delays.after(wait);
        pendingDelay = delay;
        return delay.thenCompose(done -> {
            host.onWaited(wait, engine.now() - start);
            failIfAbandoned();
            HostHeldException held = host.heldException(engine.now());
            if (held != null) {
                throw new CompletionException(held); // a hold that began meanwhile is not waited out
            }
            return waitAsync(host.rebookIfRefusedSince(engine.now()));
        });
    }

    /**
     * Gives up a turn in progress (the application cancelled, or completed the future itself): leaves
     * the queue and cancels the wait. An attempt already sent keeps its permit until its exchange
     * ends: the request is still in flight at the host.
     */
    public void abandon() {
        abandoned = true;
        CompletableFuture<Void> permit = pendingPermit;
        if (permit != null) {
            permit.cancel(false);
        }
        CompletableFuture<Void> delay = pendingDelay;
        if (delay != null) {
            delay.cancel(false);
        }
        if (!inFlight) {
            releasePermit();
        }
    }

    /**
     * The response to this attempt, from its status and {@code Retry-After} alone, before any body
     * is read. Returns true when the engine will retry: the caller discards this response.
     */
    public boolean onResponse(int status, String retryAfter) {
        long now = engine.now();
        lastDecision = null;
        if (!host.policy().isRefusal(status)) {
            // A 5xx that is not a refusal is a failure, not a sign of the limit; anything under 500 was let through.
            if (status < 500) {
                CharacterisationChange change = host.onAdmitted(now, sentAt);
                if (change != null) {
                    engine.listener.onRecharacterised(host, change);
                }
            }
            return false;
        }
        RetryAfter header = RetryAfterParser.parse(retryAfter, now);
        Decision decision = host.onRefusal(now, sentAt, status, header, attempt, replayable, engine.random.getAsDouble());
        engine.listener.onRefusal(host, decision);
        // Recorded only once told: a listener that throws makes the caller hand this response back,
        // and retryRequested() must then agree with it.
        lastDecision = decision;
        return decision.isRetry();
    }

    /** The attempt is over (answered or failed): its permit goes back. Safe to call twice. */
    public void endAttempt() {
        inFlight = false;
        releasePermit();
    }

    /** Whether the last response was a refusal the engine will retry. */
    public boolean retryRequested() {
        return lastDecision != null && lastDecision.isRetry();
    }

    /** The decision on the last response, or null when it was not a refusal. */
    public Decision lastDecision() {
        return lastDecision;
    }

    public HostState host() {
        return host;
    }

    private void failIfHeld() throws HostHeldException {
        HostHeldException held = host.heldException(engine.now());
        if (held != null) {
            engine.listener.onHeldRequest(host, held);
            throw held;
        }
    }

    private void markSent() {
        inFlight = true;
        sentAt = engine.now();
        host.onSent(sentAt);
    }

    private void failIfAbandoned() {
        if (abandoned) {
            throw new CancellationException();
        }
    }

    private static HostHeldException heldIn(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return cause instanceof HostHeldException ? (HostHeldException) cause : null;
    }

    private void releasePermit() {
        if (PERMIT.compareAndSet(this, 1, 0)) {
            host.permits().release();
        }
    }
}
