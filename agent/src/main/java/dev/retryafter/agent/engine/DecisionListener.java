package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.learn.HintBudget;
import dev.retryafter.agent.engine.knowledge.Learned;
import dev.retryafter.agent.engine.knowledge.ObservedTurn;

/**
 * Where every decision goes: the log, the exit report and the tests all hang off this one listener.
 * Called outside the host's lock, on the thread that received the response; keep it quick.
 */
public interface DecisionListener {

    /** Every refusal, with what the engine decided and why. */
    void onRefusal(HostState host, Decision decision);

    /**
     * A refusal began a streak and taught the host's ceiling and pace. Told after {@link #onRefusal}
     * for the same refusal.
     */
    default void onLearned(HostState host, Learned learned) {
    }

    /**
     * The host's category, or the evidence for it, changed: a refusal streak ended, or a refusal caught its
     * {@code Retry-After} contradicting itself.
     */
    void onRecharacterised(HostState host, CharacterisationChange change);

    /** A host's rate-limit hints were believed, or distrusted, for the first time: {@code change} says which and why. */
    default void onHints(HostState host, HintBudget.Change change) {
    }

    /** A request failed fast because its host is held. */
    void onHeldRequest(HostState host, HostHeldException failure);

    /**
     * A request's turn is over (it went, or failed fast, or was given up) after waiting: what it
     * waited for, by cause, in order. Told for no turn that went at once.
     */
    default void onTurnWaited(HostState host, WaitedTurn turn) {
    }

    /**
     * The application ended a request while the agent made it wait (its cancel, abort, disconnect, interrupt, or a
     * timeout of its own that does one of these): a watchdog shorter than the host's waits shows here.
     */
    default void onEndedWhileWaiting(HostState host) {
    }

    /**
     * Observe mode let a request go at once that enforce mode would have held back, queued or
     * failed fast ({@link ObservedTurn#changesAnything()}); told for no other request.
     */
    default void onObservedTurn(HostState host, ObservedTurn turn) {
    }

    /** Listens to nothing. */
    enum NoOp implements DecisionListener {
        INSTANCE;

        @Override
        public void onRefusal(HostState host, Decision decision) {
        }

        @Override
        public void onRecharacterised(HostState host, CharacterisationChange change) {
        }

        @Override
        public void onHeldRequest(HostState host, HostHeldException failure) {
        }
    }
}
