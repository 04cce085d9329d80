package dev.retryafter.agent.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/** How an asynchronous caller waits: no thread sits asleep, and cancelling the future cancels the wait. */
@FunctionalInterface
public interface Delays {

    CompletableFuture<Void> after(long millis);

    static Delays using(final ScheduledExecutorService scheduler) {
        return new Delays() { // not a lambda: premain and a first request come this way (see AgentInstaller)
            @Override
            public CompletableFuture<Void> after(long millis) {
                CompletableFuture<Void> done = new CompletableFuture<>();
                ScheduledFuture<?> task = scheduler.schedule(new Completion(done), millis, TimeUnit.MILLISECONDS);
                done.whenComplete(new CancelTask(task));
                return done;
            }
        };
    }

    /** Ends a wait. Not a lambda, as the rest of the agent's waits: see AgentInstaller. */
    final class Completion implements Runnable {
        private final CompletableFuture<Void> done;

        Completion(CompletableFuture<Void> done) {
            this.done = done;
        }

        @Override
        public void run() {
            done.complete(null);
        }
    }

    /** A wait cancelled (or ended) cancels its scheduled task. */
    final class CancelTask implements BiConsumer<Void, Throwable> {
        private final ScheduledFuture<?> task;

        CancelTask(ScheduledFuture<?> task) {
            this.task = task;
        }

        @Override
        public void accept(Void ignored, Throwable failure) {
            task.cancel(false);
        }
    }
}
