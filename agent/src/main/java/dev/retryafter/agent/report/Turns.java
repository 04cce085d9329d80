package dev.retryafter.agent.report;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.HostHeldException;

import java.util.concurrent.CompletableFuture;

/**
 * Where the adapters take a request's turn: the engine's {@link Call#awaitTurn()} and
 * {@link Call#turn()}, watched by {@link ExplainedWaits} once the agent has installed it, so every
 * wait can be explained. Without it (an engine built in a test), the call's own.
 */
public final class Turns {

    private static volatile ExplainedWaits watcher;

    private Turns() {
    }

    /** The waits from now on are explained by {@code waits}; null: none are. */
    public static void watchWith(ExplainedWaits waits) {
        watcher = waits;
    }

    /** As {@link Call#awaitTurn()}. */
    public static void await(Call call) throws HostHeldException, InterruptedException {
        ExplainedWaits w = watcher;
        if (w == null) {
            call.awaitTurn();
        } else {
            w.await(call);
        }
    }

    /** As {@link Call#turn()}. */
    public static CompletableFuture<Void> start(Call call) {
        ExplainedWaits w = watcher;
        return w == null ? call.turn() : w.start(call);
    }
}
