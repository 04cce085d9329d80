package dev.retryafter.agent.report;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.HostHeldException;

import java.util.concurrent.CompletableFuture;

/**
 * Where the adapters take a request's turn: the engine's {@link Call#awaitTurn()} and
 * {@link Call#turn()}, nothing more. The engine itself says what each turn waited for, by cause
 * ({@link dev.retryafter.agent.engine.DecisionListener#onTurnWaited}); the adapters may call it
 * directly.
 */
public final class Turns {

    private Turns() {
    }

    /** As {@link Call#awaitTurn()}. */
    public static void await(Call call) throws HostHeldException, InterruptedException {
        call.awaitTurn();
    }

    /** As {@link Call#turn()}. */
    public static CompletableFuture<Void> start(Call call) {
        return call.turn();
    }
}
