package dev.retryafter.agent.report;

import dev.retryafter.agent.engine.CharacterisationChange;
import dev.retryafter.agent.engine.Decision;
import dev.retryafter.agent.engine.DecisionLine;
import dev.retryafter.agent.engine.DecisionListener;
import dev.retryafter.agent.engine.HintBudget;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.Learned;
import dev.retryafter.agent.engine.ObservedTurn;
import dev.retryafter.agent.AgentLogger;

import java.util.Locale;

/**
 * Writes the decision log: a WARN line for every refusal with its reason, an INFO line for what
 * the engine learns (ceiling, pace, category), a WARN when a category changes or its evidence
 * moves by more than a factor of two. Lines name host and port only, never a URL. In observe mode
 * every line says what the agent "would" do, and an INFO line tells each request it would have
 * held back, queued or failed fast.
 */
public final class DecisionLog implements DecisionListener {

    private final AgentLogger log;
    /** The hold each host was last logged for: one line per hold, not one per request it fails. */
    private final java.util.concurrent.ConcurrentHashMap<String, Long> loggedHolds = new java.util.concurrent.ConcurrentHashMap<>();

    public DecisionLog(AgentLogger log) {
        this.log = log;
    }

    @Override
    public void onRefusal(HostState host, Decision decision) {
        log.warn(DecisionLine.format(decision));
    }

    @Override
    public void onLearned(HostState host, Learned learned) {
        if (learned.pacePerSecond() <= 0) {
            // The first refusal of a host whose window is not known: no window to count in, and no pace yet.
            log.info(String.format(Locale.ROOT, "%s refused after %d successes; its limit is learned when the refusals end",
                    host.key(), learned.ceiling()));
            return;
        }
        log.info(String.format(Locale.ROOT, "%s learned: %d successes in a %s window before the refusal; pace now %.1f/min",
                host.key(), learned.ceiling(), DecisionLine.duration(learned.windowMillis()), learned.pacePerSecond() * 60));
    }

    @Override
    public void onRecharacterised(HostState host, CharacterisationChange change) {
        String evidence = String.format(Locale.ROOT, "recovery took %.1fs", change.recoveryMillis() / 1000.0);
        if (change.isCategoryChange()) {
            log.warn(host.key() + " category changed: " + change.before() + " -> " + change.after() + "; " + evidence);
        } else if (change.isMedianShift()) {
            log.warn(host.key() + " median recovery/header moved by more than 2x: " + change.before() + " -> " + change.after()
                    + "; " + evidence);
        } else {
            log.info(host.key() + " category: " + change.after() + "; " + evidence);
        }
    }

    @Override
    public void onHints(HostState host, HintBudget.Change change) {
        if (change.isBelief()) {
            log.info(host.key() + " " + change);
        } else {
            log.warn(host.key() + " " + change);
        }
    }

    @Override
    public void onHeldRequest(HostState host, HostHeldException failure) {
        if (failure.whileProbing()) {
            return; // the hold's line said requests fail fast until a probe is let through
        }
        Long before = loggedHolds.put(host.key(), failure.untilMillis());
        if (before == null || before != failure.untilMillis()) {
            log.warn(failure.getMessage() + "; later requests fail the same way until then (counted in the report)");
        }
    }

    @Override
    public void onObservedTurn(HostState host, ObservedTurn turn) {
        HostHeldException held = turn.wouldFailFast();
        if (held != null) {
            Long before = loggedHolds.put(host.key(), held.untilMillis());
            if (before == null || before != held.untilMillis()) {
                log.warn("would fail fast: " + held.getMessage() + "; later requests would fail the same way until then"
                        + " (observe mode: sent; counted in the report)");
            }
            return;
        }
        StringBuilder line = new StringBuilder(host.key()).append(" request -> would ");
        if (turn.wouldQueue()) {
            line.append("queue for a permit (max-concurrency ").append(host.policy().maxConcurrency()).append(" in flight)");
        }
        if (turn.wouldWaitMillis() > 0) {
            line.append(turn.wouldQueue() ? ", then " : "").append("wait ").append(String.format(Locale.ROOT, "%.1fs", turn.wouldWaitMillis() / 1000.0))
                    .append(" before sending");
        }
        log.info(line.append(" (observe mode: sent now)").toString());
    }
}
