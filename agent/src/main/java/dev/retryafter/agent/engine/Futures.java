package dev.retryafter.agent.engine;

import java.util.concurrent.CompletableFuture;

/** Java 8 has no {@code CompletableFuture.failedFuture}. */
final class Futures {

    static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private Futures() {
    }

    static <T> CompletableFuture<T> failed(Throwable failure) {
        CompletableFuture<T> future = new CompletableFuture<>();
        future.completeExceptionally(failure);
        return future;
    }
}
