package dev.retryafter.agent.testing;

import dev.retryafter.agent.engine.CharacterisationChange;
import dev.retryafter.agent.engine.Decision;
import dev.retryafter.agent.engine.DecisionListener;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.knowledge.Learned;
import dev.retryafter.agent.engine.WaitedTurn;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Keeps every decision and change, for tests to assert on. */
public final class RecordingListener implements DecisionListener {

    public final List<Decision> decisions = new CopyOnWriteArrayList<>();
    public final List<CharacterisationChange> changes = new CopyOnWriteArrayList<>();
    public final List<HostHeldException> heldRequests = new CopyOnWriteArrayList<>();
    /** One for each streak begun: what its first refusal taught. */
    public final List<Learned> learned = new CopyOnWriteArrayList<>();
    /** Every turn that waited, with what it waited for. */
    public final List<WaitedTurn> turnsWaited = new CopyOnWriteArrayList<>();
    /** The host of each request the application ended while it waited. */
    public final List<HostState> endedWhileWaiting = new CopyOnWriteArrayList<>();

    @Override
    public void onRefusal(HostState host, Decision decision) {
        decisions.add(decision);
    }

    @Override
    public void onLearned(HostState host, Learned what) {
        learned.add(what);
    }

    @Override
    public void onRecharacterised(HostState host, CharacterisationChange change) {
        changes.add(change);
    }

    @Override
    public void onHeldRequest(HostState host, HostHeldException failure) {
        heldRequests.add(failure);
    }

    @Override
    public void onTurnWaited(HostState host, WaitedTurn turn) {
        turnsWaited.add(turn);
    }

    @Override
    public void onEndedWhileWaiting(HostState host) {
        endedWhileWaiting.add(host);
    }
}
