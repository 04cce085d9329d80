package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.learn.HintBudget;
import dev.retryafter.agent.engine.knowledge.ObservedTurn;

import dev.retryafter.agent.engine.header.RetryAfter;
import dev.retryafter.agent.engine.header.RetryAfterParser;
import dev.retryafter.agent.engine.header.RateLimitHeaders;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.locks.LockSupport;

/**
 * One request as the application made it, through all its attempts. An adapter drives it:
 * <pre>
 *   do {
 *       call.awaitTurn();                 // or turn(), a future, for asynchronous clients
 *       send, and on the response: if (call.wantsHeaders(status)) offer each header: call.offerHeader(name, value)
 *                                   call.onResponse(status, retryAfterHeader)
 *       call.endAttempt();
 *   } while (call.retryRequested());
 * </pre>
 * A call belongs to one request; the asynchronous path hands it from stage to stage, never to two
 * threads at once. Only {@link #abandon()} may come from another thread.
 *
 * <p>Both paths run one turn algorithm ({@link TurnStep}): take a permit, then wait / go / held
 * until it says go. A call binds to its host's state when it takes the permit, in one step with the
 * store's check that the state is still live, so no call ever uses a state the store has dropped.
 */
public final class Call {

    private static final AtomicIntegerFieldUpdater<Call> PERMIT =
            AtomicIntegerFieldUpdater.newUpdater(Call.class, "permitHeld");
    private static final AtomicIntegerFieldUpdater<Call> PHASE =
            AtomicIntegerFieldUpdater.newUpdater(Call.class, "phase");
    private static final AtomicIntegerFieldUpdater<Call> AT_HOST =
            AtomicIntegerFieldUpdater.newUpdater(Call.class, "atHost");

    /** Between attempts, or before the first. */
    private static final int IDLE = 0;
    /** Waiting for a permit or for its moment to go. */
    private static final int WAITING = 1;
    /** Sent: the attempt's permit is the exchange's to give back. */
    private static final int SENT = 2;
    /** Abandoned: no later turn goes. Final. */
    private static final int ABANDONED = 3;

    private final RetryEngine engine;
    private final String hostName;
    private final int port;
    /** "host:port", built once. */
    private final String key;
    private final boolean replayable;
    private volatile HostState host;
    private int attempt;
    private long sentAt;
    /** The attempt's number among its host's sends: its response's hints are read against it. */
    private long sentAs;
    /** The rate-limit headers of the response under way, as the adapter offered them; null: none offered. */
    private RateLimitHeaders offered;
    private Decision lastDecision;
    /**
     * The moment this call's next attempt waits for on its own, and why (a wait raised for its last tries while
     * the host goes on looking for the window's end: {@link Wait#hostMillis()}); MIN_VALUE: none.
     */
    private long ownNotBefore = Long.MIN_VALUE;
    private Reason ownReason;
    /** The own wait of the turn under way, accounted once the turn has its permit. */
    private long ownWaited;
    /** The mode of the attempt under way, read as its turn began. */
    private Mode mode = Mode.ENFORCE;

    /** 1 while this call holds one of the host's permits; released exactly once, by whoever gets here first. */
    private volatile int permitHeld;
    private volatile int phase = IDLE;
    /** 1 from a send until its attempt ends, counted at the host once either way (an abandon of a sent attempt too). */
    private volatile int atHost;
    /** The thread asleep in this call's blocking turn, for {@link #abandon()} to wake; null while none. */
    private volatile Thread sleeping;
    private volatile CompletableFuture<Void> pendingPermit;
    private volatile CompletableFuture<Void> pendingDelay;
    /** What the turn under way waited for so far; null while nothing. Told to the listener as the turn ends. */
    private volatile WaitedTurn waited;

    Call(RetryEngine engine, String hostName, int port, boolean replayable) {
        this.engine = engine;
        this.hostName = hostName;
        this.port = port;
        this.key = RetryEngine.key(hostName, port);
        this.replayable = replayable;
    }

    /**
     * Blocks until this attempt may be sent: a permit under the host's concurrency cap, then its
     * place in the pace, after any wait a refusal imposed. Fails fast while the host is held.
     * An interrupt ends the wait at once; the interrupt flag stays set and InterruptedException is thrown.
     * A call abandoned from another thread throws {@link CancellationException}.
     */
    public void awaitTurn() throws HostHeldException, InterruptedException {
        attempt++;
        ownWaited = 0;
        startWaiting();
        HostState current = host(); // one lookup for the mode and the hold: this is every request's path
        if (observes(current)) {
            observeTurn();
            return;
        }
        // One reading of the clock until something waits: the happy path reads it twice in all, here and at the response.
        long now = engine.now();
        if (ownNotBefore != Long.MIN_VALUE) {
            long own = Math.max(0, ownNotBefore - now);
            ownNotBefore = Long.MIN_VALUE;
            try {
                sleep(own);
            } catch (InterruptedException e) {
                ownWaited = engine.now() - now;
                ownWaitAbandoned();
                interruptedWhileWaiting();
                throw e;
            }
            long after = engine.now();
            ownWaited = after - now;
            now = after;
            if (abandoned()) {
                ownWaitAbandoned();
                throw new CancellationException("the call was abandoned");
            }
        }
        failIfHeld(current, now);
        CompletableFuture<Void> permit = acquirePermit(current, now);
        HostState state = host;
        waited = null;
        accountOwnWait(state);
        try {
            if (!permit.isDone()) {
                long queuedFrom = now;
                pendingPermit = permit; // for abandon() to cancel: the wait in the queue ends with it
                if (abandoned()) {
                    permit.cancel(false); // abandon() may have looked before pendingPermit was set
                }
                try {
                    state.permits().await(permit);
                } finally {
                    now = engine.now();
                    onQueued(state, now - queuedFrom); // cut short by a cancel or an interrupt too: what it queued
                }
            }
            onPermitGranted();
            for (boolean booked = false; ; booked = true) {
                TurnStep step = TurnStep.next(state, booked, now);
                if (step.kind == TurnStep.Kind.GO) {
                    break;
                }
                if (step.kind == TurnStep.Kind.HELD) {
                    engine.listener.onHeldRequest(state, step.held);
                    throw step.held;
                }
                long start = now;
                try {
                    sleep(step.waitMillis);
                } finally {
                    now = engine.now();
                    onWaited(state, step, now - start);
                }
                failIfAbandoned();
            }
            markSent(now);
        } catch (InterruptedException e) {
            releasePermit();
            interruptedWhileWaiting();
            throw e;
        } catch (HostHeldException | RuntimeException | Error e) {
            releasePermit();
            PHASE.compareAndSet(this, WAITING, IDLE); // the turn is over: a cancel from now on ended no wait
            throw e;
        } finally {
            endTurn(state);
        }
    }

    /**
     * The same turn as {@link #awaitTurn()}, without a thread waiting: the future completes when
     * the attempt may be sent, or fails with {@link HostHeldException}, or with
     * {@link CancellationException} once {@link #abandon()} was called. It never completes normally
     * unless this call holds a permit. Every way out but going gives the permit back.
     */
    public CompletableFuture<Void> turn() {
        attempt++;
        ownWaited = 0;
        try {
            startWaiting();
        } catch (RuntimeException e) {
            return Futures.failed(e);
        }
        long own = ownNotBefore;
        if (own == Long.MIN_VALUE) {
            return turnNow();
        }
        ownNotBefore = Long.MIN_VALUE;
        long from = engine.now();
        CompletableFuture<Void> delay = engine.delays.after(Math.max(0, own - from));
        pendingDelay = delay;
        if (phase == ABANDONED) {
            delay.cancel(false);
        }
        return delay.handle((done, failure) -> {
            ownWaited = engine.now() - from;
            return failure;
        }).thenCompose(failure -> {
            if (failure != null || abandoned()) { // the application ended the call while it waited
                ownWaitAbandoned();
                return Futures.failed(failure != null ? failure : new CancellationException("the call was abandoned"));
            }
            return turnNow();
        });
    }

    /** The turn from its permit on, after any wait of this call's own. */
    private CompletableFuture<Void> turnNow() {
        try {
            HostState current = host();
            if (observes(current)) {
                observeTurn();
                return Futures.DONE;
            }
            long now = engine.now();
            failIfHeld(current, now);
            CompletableFuture<Void> permit = acquirePermit(current, now);
            pendingPermit = permit;
            if (phase == ABANDONED) {
                permit.cancel(false); // abandon() may have looked before pendingPermit was set
            }
            HostState state = host;
            waited = null;
            accountOwnWait(state);
            long queuedFrom = permit.isDone() ? Long.MIN_VALUE : now;
            return permit.handle((granted, failure) -> {
                if (queuedFrom != Long.MIN_VALUE) {
                    onQueued(state, engine.now() - queuedFrom); // cut short by a cancel too: what it queued
                }
                return failure;
            }).thenCompose(failure -> {
                if (failure != null) {
                    return Futures.<Void>failed(failure);
                }
                onPermitGranted();
                return steps(state, false);
            }).whenComplete((went, failure) -> {
                endTurn(state);
                if (failure != null) {
                    releasePermit();
                    PHASE.compareAndSet(this, WAITING, IDLE); // the turn is over: a cancel from now on ended no wait
                    HostHeldException held = heldIn(failure);
                    if (held != null) {
                        engine.listener.onHeldRequest(state, held);
                    }
                }
            });
        } catch (HostHeldException | RuntimeException e) {
            releasePermit();
            PHASE.compareAndSet(this, WAITING, IDLE); // the turn is over: a cancel from now on ended no wait
            return Futures.failed(e);
        }
    }

    /** Reads the mode this attempt runs in: the host's policy's, else the engine's. */
    private boolean observes(HostState current) {
        mode = engine.modeFor(current.policy());
        return mode == Mode.OBSERVE;
    }

    /**
     * Observe mode's turn: a permit at once, whatever the cap (so requests in flight are still
     * counted, and a switch to enforce sees them), and what enforce mode would have done said and
     * counted; the attempt goes now.
     */
    private void observeTurn() {
        CompletableFuture<Void> permit = acquireUncappedPermit();
        HostState state = host;
        try {
            onPermitGranted();
            long now = engine.now();
            ObservedTurn turn = state.observeTurn(now, permit == HostPermits.GRANTED_OVER_CAP);
            if (turn.changesAnything()) {
                engine.listener.onObservedTurn(state, turn);
            }
            markSent(now);
        } catch (RuntimeException | Error e) {
            releasePermit();
            throw e;
        }
    }

    /** Drives the turn from here on: each wait is a delay, with no thread asleep. */
    private CompletableFuture<Void> steps(HostState state, boolean booked) {
        long now = engine.now();
        TurnStep step = TurnStep.next(state, booked, now);
        switch (step.kind) {
            case GO:
                markSent(now);
                return Futures.DONE;
            case HELD:
                return Futures.failed(step.held);
            default:
                long start = now;
                CompletableFuture<Void> delay = engine.delays.after(step.waitMillis);
                pendingDelay = delay;
                if (phase == ABANDONED) {
                    delay.cancel(false);
                }
                return delay.handle((done, failure) -> {
                    onWaited(state, step, engine.now() - start); // cancelled too: what it waited until the application ended it
                    return failure;
                }).thenCompose(failure -> {
                    if (failure != null) {
                        return Futures.<Void>failed(failure);
                    }
                    failIfAbandoned();
                    return steps(state, true);
                });
        }
    }

    private void accountOwnWait(HostState state) {
        long own = ownWaited;
        if (own > 0) {
            ownWaited = 0;
            onWaited(state, TurnStep.waitFor(own, ownReason), own);
        }
    }

    /** The turn queued {@code millis} for a permit, the host's cap full. */
    private void onQueued(HostState state, long millis) {
        if (millis > 0) {
            state.onQueued(millis);
            turnWaited().add(Reason.QUEUE_AT_CAP, millis);
        }
    }

    /** The turn waited {@code actualMillis} for {@code step}: counted for the host, by cause, and for the turn. */
    private void onWaited(HostState state, TurnStep step, long actualMillis) {
        state.onWaited(step, actualMillis);
        step.account(actualMillis, turnWaited());
    }

    private WaitedTurn turnWaited() {
        WaitedTurn turn = waited;
        if (turn == null) {
            turn = new WaitedTurn();
            waited = turn;
        }
        return turn;
    }

    /** The turn is over, however it ended: what it waited for, if anything, is told. */
    private void endTurn(HostState state) {
        WaitedTurn turn = waited;
        waited = null;
        if (turn != null && !turn.isEmpty()) {
            try {
                engine.listener.onTurnWaited(state, turn);
            } catch (RuntimeException e) {
                // The turn went or failed already; a listener's failure to say so must not change that.
            }
        }
    }

    /**
     * Gives up a turn in progress (the application cancelled, or completed the future itself): leaves
     * the queue and cancels the wait; no later turn of this call goes. An attempt already sent keeps
     * its permit until its exchange ends: the request is still in flight at the host.
     */
    public void abandon() {
        giveUp(true, false);
    }

    /**
     * As {@link #abandon()}, for a request whose turn may have come but which the client has not sent and now will not
     * (Jetty's abort winning the race with the turn's handing over): counted as ended while it waited either way, since
     * it never went. Its permit, if the turn came, goes back at {@link #endAttempt}, as after a send.
     */
    public void abandonUnsent() {
        giveUp(true, true);
    }

    /**
     * Gives up a turn in progress for a reason of the agent's own (its failure to hand the turn to the client, or the
     * client ran the request another way): as {@link #abandon()}, but not counted as ended by the application.
     */
    public void withdraw() {
        giveUp(false, false);
    }

    /**
     * {@code byApplication}: a turn under way is counted as a request the application ended while it waited;
     * {@code unsent}: so is one whose turn came, the request not sent.
     */
    private void giveUp(boolean byApplication, boolean unsent) {
        int was;
        do {
            was = phase;
            if (was == ABANDONED) {
                return;
            }
        } while (!PHASE.compareAndSet(this, was, ABANDONED));
        if (was == SENT) {
            if (byApplication && unsent) {
                endedWhileWaiting();
            }
            return; // endAttempt gives the permit back
        }
        CompletableFuture<Void> permit = pendingPermit;
        if (permit != null) {
            permit.cancel(false);
        }
        CompletableFuture<Void> delay = pendingDelay;
        if (delay != null) {
            delay.cancel(false);
        }
        Thread asleep = sleeping;
        if (asleep != null) {
            LockSupport.unpark(asleep);
        }
        releasePermit();
        if (byApplication && was == WAITING) {
            endedWhileWaiting(); // after the waiter is woken: the application's cancelling thread goes first
        }
    }

    /**
     * Whether this response's headers are worth offering ({@link #offerHeader}) before
     * {@link #onResponse}: a host that sends no rate-limit hints stops being asked after its first few.
     */
    public boolean wantsHeaders(int status) {
        return host().wantsHints(status);
    }

    /** One header of the response under way; only rate-limit hints are kept ({@link RateLimitHeaders}). */
    public void offerHeader(String name, String value) {
        if (RateLimitHeaders.isHint(name)) {
            if (offered == null) {
                offered = new RateLimitHeaders();
            }
            offered.offer(name, value);
        }
    }

    /**
     * The response to this attempt, from its status, {@code Retry-After} and any headers offered,
     * before any body is read. Returns true when the engine will retry: the caller discards this response.
     */
    public boolean onResponse(int status, String retryAfter) {
        HostState state = host();
        long now = engine.now();
        lastDecision = null;
        boolean refusal = state.policy().isRefusal(status);
        RateLimitHeaders headers = offered;
        offered = null;
        HintBudget.Change hinted = state.onHint(headers == null ? null : headers.hint(now), refusal, sentAs, now);
        if (hinted != null) {
            engine.listener.onHints(state, hinted);
        }
        if (!refusal) {
            // Only what the limiter let through teaches the limit; a 5xx is a failure, a 401 or 400 the application's.
            if (!Policy.isAdmission(status)) {
                Decision blocked = state.onBlocked(now, status, attempt, mode);
                if (blocked != null) {
                    engine.listener.onRefusal(state, blocked);
                    lastDecision = blocked;
                    return sendsAgain(blocked);
                }
            } else {
                HostState.Told recovered = state.onAdmitted(now, sentAt);
                if (recovered != null) {
                    tell(state, recovered);
                }
            }
            return false;
        }
        RetryAfter header = RetryAfterParser.parse(retryAfter, now);
        HostState.Told refused = state.onRefusal(now, sentAt, status, header, attempt, replayable, engine.random.getAsDouble(), mode);
        tell(state, refused);
        // Recorded only once told: a listener that throws makes the caller hand this response back,
        // and retryRequested() must then agree with it.
        lastDecision = refused.decision;
        Wait wait = refused.decision.waitBeforeNextRequest();
        if (refused.decision.retriesNow() && wait.hostMillis() < wait.millis()) {
            ownNotBefore = now + wait.millis();
            ownReason = wait.reason();
        }
        return sendsAgain(refused.decision);
    }

    /** Tells the listener what a response did, in order: the refusal or the category's change, then what it taught. */
    private void tell(HostState state, HostState.Told told) {
        if (told.decision != null) {
            engine.listener.onRefusal(state, told.decision);
        }
        if (told.change != null) {
            engine.listener.onRecharacterised(state, told.change);
        }
        if (told.learned != null) {
            engine.listener.onLearned(state, told.learned);
        }
    }

    /**
     * A retry goes again; so does a request that put its host on hold, when it can be sent twice: its
     * next turn fails fast with {@link HostHeldException}, so the application sees every request of a
     * hold fail the same way, and can put the record back for when the hold ends. That holds for a
     * request on its last attempt too (its last try waited for the moment a refusal holds, so the record
     * is not lost): the turn sends nothing, so the attempts sent stay within max-attempts.
     */
    private boolean sendsAgain(Decision decision) {
        return decision.retriesNow() || (decision.outcome() == Decision.Outcome.HOLD && replayable && decision.mode() == Mode.ENFORCE);
    }

    /** The attempt is over (answered or failed): its permit goes back. Safe to call twice. */
    public void endAttempt() {
        if (!PHASE.compareAndSet(this, SENT, IDLE)) {
            PHASE.compareAndSet(this, WAITING, IDLE); // a turn that failed or was never taken
        }
        if (AT_HOST.compareAndSet(this, 1, 0)) {
            host.onAttemptEnded(sentAs); // also when it was abandoned in flight: it is no longer at the host
        }
        releasePermit();
    }

    /** Whether the last response was a refusal the engine will retry, or fail fast on a hold: never in observe mode. */
    public boolean retryRequested() {
        return lastDecision != null && sendsAgain(lastDecision);
    }

    /**
     * Whether a response with {@code status} to the attempt under way is the agent's to answer, so
     * a client's own retry of it must stand aside: a refusal, in enforce mode. In observe mode every
     * retry stays the client's.
     */
    public boolean answersRefusal(int status) {
        return mode == Mode.ENFORCE && host().policy().isRefusal(status);
    }

    /** The decision on the last response, or null when it was not a refusal. */
    public Decision lastDecision() {
        return lastDecision;
    }

    /**
     * The host's state: the one this call's permit came from, or before the first turn, the one the
     * store holds now. Its {@link HostState#key()} names the host in messages.
     */
    public HostState host() {
        HostState bound = host;
        return bound != null ? bound : engine.stateOf(key, hostName, port);
    }

    /** "host:port", the key the engine tracks this call's host under. */
    public String hostKey() {
        return key;
    }

    private void startWaiting() {
        for (;;) {
            int now = phase;
            if (now == ABANDONED) {
                throw new CancellationException("the call was abandoned");
            }
            if (PHASE.compareAndSet(this, now, WAITING)) {
                return;
            }
        }
    }

    /**
     * A permit from the live state of this call's host, {@code found} if still live; a state the
     * store retired meanwhile gives none, so look again. {@code now} is when the turn began.
     */
    private CompletableFuture<Void> acquirePermit(HostState found, long now) {
        for (HostState state = found; ; state = engine.stateOf(key, hostName, port)) {
            CompletableFuture<Void> permit = state.permits().acquire();
            if (permit != null) {
                state.touch(now);
                host = state;
                return permit;
            }
        }
    }

    /** As {@link #acquirePermit(HostState)}, but granted at once whatever the cap. */
    private CompletableFuture<Void> acquireUncappedPermit() {
        for (;;) {
            HostState state = engine.stateOf(key, hostName, port);
            CompletableFuture<Void> permit = state.permits().acquireUncapped();
            if (permit != null) {
                state.touch(engine.now());
                host = state;
                return permit;
            }
        }
    }

    /** The permit is this call's now, unless abandon() got there first: then it goes straight back. */
    private void onPermitGranted() {
        permitHeld = 1;
        failIfAbandoned();
    }

    private void failIfHeld(HostState state, long now) throws HostHeldException {
        HostHeldException held = state.heldException(now);
        Decision last = lastDecision;
        if (held == null && last != null && last.outcome() == Decision.Outcome.HOLD && attempt > last.maxAttempts()) {
            // Out of attempts, sent again only to fail fast with its hold, which ended meanwhile (released by hand):
            // nothing more is sent, and the record goes back to the application for now.
            held = new HostHeldException(key, now, "the hold this request's last refusal began is over; it is out of attempts");
        }
        if (held != null) {
            PHASE.compareAndSet(this, WAITING, IDLE); // failed fast: a cancel from now on ended no wait
            engine.listener.onHeldRequest(state, held);
            throw held;
        }
    }

    /** Goes, unless abandoned: an abandoned turn gave its permit back and must not complete normally. */
    private void markSent(long now) {
        if (!PHASE.compareAndSet(this, WAITING, SENT)) {
            throw new CancellationException("the call was abandoned");
        }
        sentAt = now;
        sentAs = host.onSent(sentAt);
        atHost = 1;
    }

    /** A blocking wait that {@link #abandon()} ends at once (the application's cancel, from another thread). */
    private void sleep(long millis) throws InterruptedException {
        sleeping = Thread.currentThread();
        try {
            engine.sleeper.sleep(millis, this::abandoned);
        } finally {
            sleeping = null;
        }
    }

    /** The blocking turn's thread was interrupted while it waited: counted once, unless an abandon came first and counted it. */
    private void interruptedWhileWaiting() {
        if (PHASE.compareAndSet(this, WAITING, IDLE)) {
            endedWhileWaiting();
        }
        Thread.currentThread().interrupt();
    }

    /**
     * The application ended this call during the wait of its own that came before its permit (a refusal's wait for its
     * last tries): that wait is accounted for the host and told, as a turn's.
     */
    private void ownWaitAbandoned() {
        HostState state = host();
        waited = null;
        accountOwnWait(state);
        endTurn(state);
    }

    /**
     * The application ended this call while it waited for its turn (its cancel, abort or disconnect came through
     * {@link #abandon()}; an interrupt through the blocking turn): counted for the host, and told.
     */
    private void endedWhileWaiting() {
        try {
            HostState state = host();
            state.onEndedWhileWaiting();
            engine.listener.onEndedWhileWaiting(state);
        } catch (RuntimeException e) {
            // A count, and what is said of it, must not change how the call ends.
        }
    }

    /** Whether {@link #abandon()} was called: no later turn of this call goes. */
    public boolean abandoned() {
        return phase == ABANDONED;
    }

    private void failIfAbandoned() {
        if (abandoned()) {
            throw new CancellationException("the call was abandoned");
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
