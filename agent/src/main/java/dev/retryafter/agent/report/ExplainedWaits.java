package dev.retryafter.agent.report;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.engine.Delays;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.Mode;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.engine.Sleeper;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * How the engine waits, as the agent gives it ({@link Sleeper}, {@link Delays}), watched: each wait
 * a request's turn asks for is put down to its cause ({@link TurnWaits}) and the turn, once over,
 * told to the {@link DecisionLog}. The engine's turn says how long to wait, not why; the why is
 * read here, from the host's knowledge as the wait begins, so the engine stays as it is.
 *
 * <p>A turn is known by the thread that takes it: the adapters take every turn through {@link Turns},
 * which marks the thread for it. A blocking turn's waits happen on that thread. An asynchronous
 * turn's first wait is asked for on it too, and each later one from the completion of the one
 * before, which this class runs with the same mark. One case escapes: an asynchronous turn that
 * queued for a permit is handed it on the thread that gave it back, unmarked, so its pace wait
 * after the queue is counted as queue.
 */
public final class ExplainedWaits implements Sleeper, Delays {

    /** The turn the thread is taking, if any: a blocking one (reused per thread) or an asynchronous one. */
    private static final ThreadLocal<TurnWaits> CURRENT = new ThreadLocal<TurnWaits>();

    private final Clock clock;
    private final Sleeper sleeper;
    private final ScheduledExecutorService scheduler;
    private final DecisionLog log;
    /** Whose modes tell an enforced turn from an observed one; set once the engine is built. */
    private volatile RetryEngine engine;

    public ExplainedWaits(Clock clock, Sleeper sleeper, ScheduledExecutorService scheduler, DecisionLog log) {
        this.clock = clock;
        this.sleeper = sleeper;
        this.scheduler = scheduler;
        this.log = log;
    }

    /** The engine these waits are its: built after them, since they are part of it. */
    public void watch(RetryEngine engine) {
        this.engine = engine;
    }

    /** Whether requests to the call's host are enforced now: an observed turn never queues. */
    private boolean enforced(Call call) {
        RetryEngine e = engine;
        if (e == null) {
            return false;
        }
        Mode own = call.host().policy().mode();
        return (own != null ? own : e.mode()) == Mode.ENFORCE;
    }

    @Override
    public void sleep(long millis) throws InterruptedException {
        TurnWaits turn = CURRENT.get();
        if (turn != null && turn.active && millis > 0) {
            turn.waitBegins(millis, clock.millis());
        }
        sleeper.sleep(millis);
    }

    @Override
    public CompletableFuture<Void> after(long millis) {
        TurnWaits current = CURRENT.get();
        TurnWaits turn = current != null && current.active && millis > 0 ? current : null; // a hand-over's 0 is nobody's wait
        if (turn != null) {
            turn.waitBegins(millis, clock.millis());
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        ScheduledFuture<?> task = scheduler.schedule(new Completion(done, turn), millis, TimeUnit.MILLISECONDS);
        done.whenComplete(new CancelTask(task));
        return done;
    }

    /** A blocking turn ({@link Call#awaitTurn()}), watched. */
    void await(Call call) throws HostHeldException, InterruptedException {
        TurnWaits turn = CURRENT.get();
        if (turn == null || turn.active) { // none yet on this thread, or an asynchronous one's mark left by a continuation
            turn = new TurnWaits();
            CURRENT.set(turn);
        }
        turn.begin(call, clock.millis());
        try {
            call.awaitTurn();
        } finally {
            if (turn.end(clock.millis(), enforced(call))) {
                log.onTurnWaited(turn);
            }
        }
    }

    /** An asynchronous turn ({@link Call#turn()}), watched; the future is the engine's own. */
    CompletableFuture<Void> start(Call call) {
        TurnWaits before = CURRENT.get();
        TurnWaits turn = new TurnWaits();
        turn.begin(call, clock.millis());
        CURRENT.set(turn);
        CompletableFuture<Void> future;
        try {
            future = call.turn();
        } finally {
            CURRENT.set(before);
        }
        if (future.isDone() && turn.firstWaitAt == Long.MIN_VALUE) {
            turn.active = false; // went at once, or failed fast: nothing waited
            return future;
        }
        future.whenComplete(new TurnEnded(turn));
        return future;
    }

    /** Ends a wait: completes its future on the scheduler's thread, marked with the turn that waited. */
    private static final class Completion implements Runnable {
        private final CompletableFuture<Void> done;
        private final TurnWaits turn;

        Completion(CompletableFuture<Void> done, TurnWaits turn) {
            this.done = done;
            this.turn = turn;
        }

        @Override
        public void run() {
            TurnWaits before = CURRENT.get();
            CURRENT.set(turn);
            try {
                done.complete(null);
            } finally {
                CURRENT.set(before);
            }
        }
    }

    private static final class CancelTask implements BiConsumer<Void, Throwable> {
        private final ScheduledFuture<?> task;

        CancelTask(ScheduledFuture<?> task) {
            this.task = task;
        }

        @Override
        public void accept(Void ignored, Throwable failure) {
            task.cancel(false);
        }
    }

    private final class TurnEnded implements BiConsumer<Void, Throwable> {
        private final TurnWaits turn;

        TurnEnded(TurnWaits turn) {
            this.turn = turn;
        }

        @Override
        public void accept(Void went, Throwable failure) {
            if (turn.end(clock.millis(), enforced(turn.call))) {
                log.onTurnWaited(turn);
            }
        }
    }
}
