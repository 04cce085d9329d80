package dev.retryafter.agent.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** How an asynchronous caller waits: no thread sits asleep, and cancelling the future cancels the wait. */
@FunctionalInterface
public interface Delays {

    CompletableFuture<Void> after(long millis);

    static Delays using(final ScheduledExecutorService scheduler) {
        return new Delays() { // not a lambda: premain and a first request come this way (see AgentInstaller)
            @Override
            public CompletableFuture<Void> after(long millis) {
                CompletableFuture<Void> done = new CompletableFuture<>();
                ScheduledFuture<?> task = scheduler.schedule(() -> done.complete(null), millis, TimeUnit.MILLISECONDS);
                done.whenComplete((ignored, failure) -> task.cancel(false));
                return done;
            }
        };
    }
}
