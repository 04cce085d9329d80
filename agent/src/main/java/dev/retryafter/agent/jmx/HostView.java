package dev.retryafter.agent.jmx;

import dev.retryafter.agent.engine.Decision;
import dev.retryafter.agent.engine.HostSnapshot;
import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.Reason;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.engine.WaitsByCause;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** A host's MBean: each attribute is read from the snapshot the exit report shows, taken at the read. */
final class HostView implements HostMXBean {

    private final HostState host;
    private final RetryEngine engine;

    HostView(HostState host, RetryEngine engine) {
        this.host = host;
        this.engine = engine;
    }

    private HostSnapshot now() {
        return host.snapshot(engine.now());
    }

    @Override
    public String getHost() {
        return host.key();
    }

    @Override
    public String getPolicy() {
        return host.policy().name();
    }

    @Override
    public String getCategory() {
        return now().category.label();
    }

    @Override
    public String getRateLimitHints() {
        return now().hints;
    }

    @Override
    public double getMedianRatio() {
        return now().medianRatio().orElse(Double.NaN);
    }

    @Override
    public int getLearnedCeiling() {
        return now().learnedCeiling().orElse(-1);
    }

    @Override
    public long getWindowMillis() {
        return now().windowMillis;
    }

    @Override
    public double getPacePerMinute() {
        return now().pacePerMinute();
    }

    @Override
    public int getInFlight() {
        return now().inFlight;
    }

    @Override
    public int getMaxConcurrency() {
        return now().maxConcurrency;
    }

    @Override
    public long getRequests() {
        return now().requests;
    }

    @Override
    public long getRefusals() {
        return now().refusals;
    }

    @Override
    public long getRetries() {
        return now().retries;
    }

    @Override
    public long getGivenUp() {
        return now().gaveUp;
    }

    @Override
    public long getWaitedMillis() {
        return now().waitedMillis;
    }

    @Override
    public long getLongestWaitMillis() {
        return now().longestWaitMillis;
    }

    @Override
    public Map<String, Long> getWaitedMillisByCause() {
        WaitsByCause waits = now().waitedByCause;
        Map<String, Long> byCause = new LinkedHashMap<>();
        for (Reason cause : waits.causes()) {
            byCause.put(cause.name(), waits.millis(cause));
        }
        return byCause;
    }

    @Override
    public long getHolds() {
        return now().holds;
    }

    @Override
    public long getHeldRequests() {
        return now().heldRequests;
    }

    @Override
    public long getEndedWhileWaiting() {
        return now().endedWhileWaiting;
    }

    @Override
    public boolean isHeld() {
        return now().holdUntil().isPresent();
    }

    @Override
    public String getHeldUntil() {
        HostSnapshot s = now();
        return s.holdUntil().isPresent() ? Instant.ofEpochMilli(s.holdUntil().getAsLong()).toString() : "";
    }

    @Override
    public String getLastDecision() {
        Decision last = now().lastDecision().orElse(null);
        return last == null ? "" : last.toString();
    }

    @Override
    public String getLastReason() {
        Decision last = now().lastDecision().orElse(null);
        return last == null ? "" : last.waitBeforeNextRequest().reason().name();
    }

    @Override
    public String getLastOutcome() {
        Decision last = now().lastDecision().orElse(null);
        return last == null ? "" : last.outcome().name();
    }

    @Override
    public String getLastDecisionAt() {
        HostSnapshot s = now();
        return s.lastDecision().isPresent() ? Instant.ofEpochMilli(s.lastDecisionMillis()).toString() : "";
    }
}
