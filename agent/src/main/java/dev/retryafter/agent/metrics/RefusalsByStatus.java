package dev.retryafter.agent.metrics;

import dev.retryafter.agent.engine.CharacterisationChange;
import dev.retryafter.agent.engine.Decision;
import dev.retryafter.agent.engine.DecisionListener;
import dev.retryafter.agent.engine.learn.HintBudget;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.knowledge.Learned;
import dev.retryafter.agent.engine.knowledge.ObservedTurn;
import dev.retryafter.agent.engine.Reason;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.engine.WaitedTurn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each host's refusals by status, the one figure the metrics need that the engine does not keep (it
 * counts a host's refusals in all). Stands between the engine and the decision log, passing every
 * call on; made only when the metrics endpoint is configured. Kept per host state, not per name, so
 * a host the engine forgot and made again starts from zero, as the engine's own counters do; and
 * counted as the engine counts {@code refusals}: a block status's hold ({@link Reason#HOLD_BLOCKED})
 * is a hold, not a refusal.
 *
 * <p>Every method of {@link DecisionListener} is passed on here; a test fails when one is added that
 * is not (its default would swallow the call, and the log line with it).
 */
public final class RefusalsByStatus implements DecisionListener {

    private final DecisionListener next;
    private final Map<HostState, Counts> byHost = new ConcurrentHashMap<>();

    public RefusalsByStatus(DecisionListener next) {
        this.next = next;
    }

    @Override
    public void onRefusal(HostState host, Decision decision) {
        try {
            if (decision.waitBeforeNextRequest().reason() != Reason.HOLD_BLOCKED) {
                Counts counts = byHost.get(host);
                if (counts == null) {
                    Counts made = new Counts();
                    counts = byHost.putIfAbsent(host, made);
                    if (counts == null) {
                        counts = made;
                    }
                }
                counts.add(decision.status());
            }
        } finally {
            next.onRefusal(host, decision);
        }
    }

    @Override
    public void onLearned(HostState host, Learned learned) {
        next.onLearned(host, learned);
    }

    @Override
    public void onRecharacterised(HostState host, CharacterisationChange change) {
        next.onRecharacterised(host, change);
    }

    @Override
    public void onHints(HostState host, HintBudget.Change change) {
        next.onHints(host, change);
    }

    @Override
    public void onHeldRequest(HostState host, HostHeldException failure) {
        next.onHeldRequest(host, failure);
    }

    @Override
    public void onTurnWaited(HostState host, WaitedTurn turn) {
        next.onTurnWaited(host, turn);
    }

    @Override
    public void onObservedTurn(HostState host, ObservedTurn turn) {
        next.onObservedTurn(host, turn);
    }

    /** The host's refusals so far as {status, count} pairs, by status; empty when none. */
    long[][] of(HostState host) {
        Counts counts = byHost.get(host);
        return counts == null ? new long[0][] : counts.copy();
    }

    /**
     * Drops the counts of host states the engine no longer tracks (evicted, or forgotten). {@code seen}
     * is what the engine tracked a moment ago; a state counted since that is not in it was made since,
     * or went since: the engine is asked again about those few alone.
     */
    void dropGone(Set<HostState> seen, RetryEngine engine) {
        List<HostState> unseen = null;
        for (HostState counted : byHost.keySet()) {
            if (!seen.contains(counted)) {
                if (unseen == null) {
                    unseen = new ArrayList<>();
                }
                unseen.add(counted);
            }
        }
        if (unseen == null) {
            return;
        }
        Set<HostState> now = Collections.newSetFromMap(new IdentityHashMap<HostState, Boolean>());
        now.addAll(engine.hosts());
        for (HostState counted : unseen) {
            if (!now.contains(counted)) {
                byHost.remove(counted);
            }
        }
    }

    /** One host's counts: a status or two, so two short arrays. */
    private static final class Counts {
        private int[] statuses = new int[0];
        private long[] counts = new long[0];

        synchronized void add(int status) {
            int i = Arrays.binarySearch(statuses, status);
            if (i >= 0) {
                counts[i]++;
                return;
            }
            int at = -i - 1;
            int[] moreStatuses = new int[statuses.length + 1];
            long[] moreCounts = new long[counts.length + 1];
            System.arraycopy(statuses, 0, moreStatuses, 0, at);
            System.arraycopy(counts, 0, moreCounts, 0, at);
            moreStatuses[at] = status;
            moreCounts[at] = 1;
            System.arraycopy(statuses, at, moreStatuses, at + 1, statuses.length - at);
            System.arraycopy(counts, at, moreCounts, at + 1, counts.length - at);
            statuses = moreStatuses;
            counts = moreCounts;
        }

        synchronized long[][] copy() {
            long[][] pairs = new long[statuses.length][];
            for (int i = 0; i < statuses.length; i++) {
                pairs[i] = new long[] {statuses[i], counts[i]};
            }
            return pairs;
        }
    }
}
