package dev.retryafter.agent.jmx;

import dev.retryafter.agent.GoverningSwitch;
import dev.retryafter.agent.engine.Mode;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.AgentLogger;

import java.time.Instant;

/** The agent's MBean. A change made through it is logged, so the log says why the agent changed course. */
final class AgentView implements AgentMXBean {

    private final RetryEngine engine;
    private final GoverningSwitch governing;
    private final String version;
    private final AgentLogger log;
    private volatile String policySource;
    private volatile long policyLoadedAtMillis;

    AgentView(RetryEngine engine, GoverningSwitch governing, String version, String policySource, long policyLoadedAtMillis,
              AgentLogger log) {
        this.engine = engine;
        this.governing = governing;
        this.version = version;
        this.log = log;
        policyLoaded(policySource, policyLoadedAtMillis);
    }

    /** Policies (re)loaded: what the MBean then shows. */
    void policyLoaded(String source, long atMillis) {
        this.policySource = source;
        this.policyLoadedAtMillis = atMillis;
    }

    @Override
    public String getVersion() {
        return version;
    }

    @Override
    public String getMode() {
        return engine.mode().label();
    }

    @Override
    public void setMode(String mode) {
        Mode next = mode == null ? null : Mode.fromLabel(mode);
        if (next == null) { // goes back to the JMX client, not the application
            throw new IllegalArgumentException("mode '" + mode + "': expected enforce or observe");
        }
        Mode before = engine.mode();
        engine.switchMode(next);
        log.info("mode {} -> {}, over JMX", before.label(), next.label());
    }

    @Override
    public boolean isEnabled() {
        return governing.isOn();
    }

    @Override
    public void setEnabled(boolean enabled) {
        boolean before = governing.isOn();
        governing.set(enabled);
        if (before != enabled) {
            log.info(enabled ? "enabled over JMX: new requests are governed again"
                    : "disabled over JMX: new requests run as if the agent were not there");
        }
    }

    @Override
    public String getPolicyFile() {
        return policySource;
    }

    @Override
    public String getPolicyLoadedAt() {
        return Instant.ofEpochMilli(policyLoadedAtMillis).toString();
    }

    @Override
    public int getHostsTracked() {
        return engine.hosts().size();
    }

    @Override
    public String releaseHold(String host) {
        if (host == null || engine.host(host) == null) {
            return host + ": not tracked";
        }
        if (engine.releaseHold(host)) {
            log.info("{}: hold released over JMX", host);
            return host + ": hold released";
        }
        return host + ": not held (or held by the fleet store, whose hold each JVM reads back)";
    }

    @Override
    public String forget(String host) {
        if (host == null || engine.host(host) == null) {
            return host + ": not tracked";
        }
        if (engine.forget(host)) {
            log.info("{}: forgotten over JMX", host);
            return host + ": forgotten";
        }
        return host + ": a request to it is in flight; try again";
    }
}
