package dev.retryafter.agent.instrument;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.report.Turns;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.function.BiConsumer;

/**
 * An asynchronous call the agent governs by sending each attempt itself ({@code java.net.http}'s {@code sendAsync},
 * HttpAsyncClient 4.1 and 5, AsyncHttpClient), as the future of its outcome: one attempt after another, each once its
 * turn has come, as a continuation the engine schedules, never a blocked thread. The turns are taken here, once; a
 * client's call says how to send an attempt, how to fail with a held host, and how to fall back to the plain call.
 */
public abstract class AsyncCall<T> extends CompletableFuture<T> {

    /** As the other adapters' discards: long enough for a small body on a slow link, short against any wait. */
    public static final long DISCARD_MILLIS = 100;
    public static final long DISCARD_BYTES = 64 * 1024;

    /** Where the agent's own failures and delayed sends run: never the agent's delay thread, never an I/O thread. */
    public static final Executor ASYNC = ForkJoinPool.getCommonPoolParallelism() > 1 ? ForkJoinPool.commonPool() : new ThreadPerTask();

    /** Where a continuation runs on the thread that completed the turn: the agent's delay thread, or the caller's. */
    public static final Executor COMPLETING_THREAD = new CompletingThread();

    /** A class, not a lambda: see AgentInstaller. */
    private static final class ThreadPerTask implements Executor {
        @Override
        public void execute(Runnable task) {
            Thread thread = new Thread(task, "retry-after-agent-async");
            thread.setDaemon(true);
            thread.start();
        }
    }

    private static final class CompletingThread implements Executor {
        @Override
        public void execute(Runnable task) {
            task.run();
        }
    }

    protected final Call call;
    /** How failures name the client: {@code "Apache async 4"}. */
    protected final String client;
    /** The turn being waited for, then the attempt in flight: what a cancel stops. */
    protected volatile Future<?> inFlight;

    protected AsyncCall(String client, Call call) {
        this.client = client;
        this.call = call;
    }

    /** Where an attempt whose turn came later is sent: {@link #ASYNC} unless a client's call says otherwise. */
    protected Executor continuations() {
        return ASYNC;
    }

    /** One attempt, its turn granted; false only when {@code atOnce} and nothing was sent: the original method then runs. */
    protected abstract boolean send(boolean atOnce);

    /** The call fails: its host is held past the longest wait. */
    protected abstract void held(HostHeldException held);

    /** Something inside the agent failed: the request goes out once more, as the client alone would send it. */
    protected abstract void fallBack(Throwable agentFailure);

    /** Whether the application gave the call up while its turn came. */
    protected boolean abandoned() {
        return isDone();
    }

    /**
     * The first attempt, on the application's thread, sent there when its turn is now: false when the agent could not
     * take the turn or the client's own {@code execute} threw at once (nothing was sent), and the original method is to
     * run as it always did.
     */
    public final boolean first() {
        CompletableFuture<Void> turn;
        try {
            turn = Turns.start(call);
        } catch (RuntimeException | Error e) {
            AgentLog.failure("taking an " + client + " turn", e);
            call.endAttempt();
            return false;
        }
        if (turn.isDone() && !turn.isCompletedExceptionally()) {
            if (!send(true)) {
                call.endAttempt();
                return false;
            }
            return true;
        }
        await(turn);
        return true;
    }

    /** Any later attempt (or the first, where the agent answers for the call from its start). */
    protected final void next() {
        CompletableFuture<Void> turn;
        try {
            turn = Turns.start(call);
        } catch (RuntimeException | Error e) {
            fallBack(e);
            return;
        }
        await(turn);
    }

    private void await(CompletableFuture<Void> turn) {
        inFlight = turn;
        turn.whenCompleteAsync(new TurnCame(), continuations());
    }

    /** The turn came, or the host is held, or the call was abandoned meanwhile (its turn cancelled: nothing more to do). */
    private final class TurnCame implements BiConsumer<Void, Throwable> {
        @Override
        public void accept(Void granted, Throwable failure) {
            if (failure == null) {
                if (abandoned()) {
                    call.endAttempt();
                } else {
                    send(false);
                }
                return;
            }
            Throwable cause = unwrap(failure);
            if (cause instanceof HostHeldException) {
                held((HostHeldException) cause);
            } else if (!(cause instanceof CancellationException)) {
                fallBack(cause);
            }
        }
    }

    protected static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
