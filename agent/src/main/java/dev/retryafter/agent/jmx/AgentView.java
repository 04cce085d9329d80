package dev.retryafter.agent.jmx;

import dev.retryafter.agent.GoverningSwitch;
import dev.retryafter.agent.config.Values;
import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.Mode;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.log.AgentLogger;
import dev.retryafter.agent.report.HostExplanation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The agent's MBean, and what the command line steers (through {@link CommandMailbox}): one
 * implementation of each change, logged with who made it, so the log says why the agent changed course.
 */
final class AgentView implements AgentMXBean {

    static final String OVER_JMX = "over JMX";
    static final String FROM_COMMAND_LINE = "from the command line";
    /** The longest hold an operator may set: a hold a fleet's store keeps cannot be lifted by hand, only outlived. */
    static final long MAX_HOLD_MILLIS = 24 * 3_600_000L;

    private final RetryEngine engine;
    private final GoverningSwitch governing;
    private final String version;
    private final AgentLogger log;
    private final PolicyControls policies;
    private volatile String policySource;
    private volatile long policyLoadedAtMillis;

    AgentView(RetryEngine engine, GoverningSwitch governing, String version, String policySource, long policyLoadedAtMillis,
              AgentLogger log, PolicyControls policies) {
        this.engine = engine;
        this.governing = governing;
        this.version = version;
        this.log = log;
        this.policies = policies;
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
        Outcome outcome = switchMode(mode, OVER_JMX);
        if (!outcome.done) { // goes back to the JMX client, not the application
            throw new IllegalArgumentException(outcome.line);
        }
    }

    Outcome switchMode(String mode, String via) {
        Mode next = mode == null ? null : Mode.fromLabel(mode);
        if (next == null) {
            return new Outcome(false, "mode '" + mode + "': expected enforce or observe");
        }
        String own = policies == null ? "" : policies.ownModes();
        String keep = own.isEmpty() ? "" : "; policies that set their own mode keep it: " + own;
        Mode before = engine.mode();
        if (before == next) {
            return new Outcome(true, "mode already " + next.label() + "; nothing changed" + keep);
        }
        engine.switchMode(next);
        if (policies != null) {
            policies.modeSwitched("switched " + via + " at " + Instant.ofEpochSecond(System.currentTimeMillis() / 1000));
        }
        log.info("mode {} -> {}, {}", before.label(), next.label(), via);
        return new Outcome(true, "mode " + before.label() + " -> " + next.label()
                + (next == Mode.OBSERVE ? ": new requests are observed and left alone" : ": new requests are governed") + keep);
    }

    @Override
    public boolean isEnabled() {
        return governing.isOn();
    }

    @Override
    public void setEnabled(boolean enabled) {
        switchEnabled(enabled, OVER_JMX);
    }

    Outcome switchEnabled(boolean enabled, String via) {
        boolean before = governing.isOn();
        governing.set(enabled);
        if (before == enabled) {
            return new Outcome(true, (enabled ? "enabled" : "disabled") + " already; nothing changed");
        }
        String what = enabled ? "enabled " + via + ": new requests are governed again"
                : "disabled " + via + ": new requests run as if the agent were not there (those under way finish as they began)";
        log.info(what);
        return new Outcome(true, what);
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
        return release(host, OVER_JMX).line;
    }

    Outcome release(String given, String via) {
        String host = tracked(given);
        if (host == null) {
            return notTracked(given, "; nothing changed");
        }
        if (engine.releaseHold(host)) {
            log.info("{}: hold released {}", host, via);
            return new Outcome(true, host + " released from its hold: its next request goes (what was learned of it stays)");
        }
        return new Outcome(true, host + " is not held (or is held by the fleet store, whose hold each JVM reads back); nothing changed");
    }

    @Override
    public String hold(String host, String duration) {
        return holdHost(host, duration, OVER_JMX).line;
    }

    /** An operator's hold of a tracked host for a while (at most a day): its requests fail fast until then. */
    Outcome holdHost(String given, String duration, String via) {
        String host = tracked(given);
        if (host == null) {
            return notTracked(given, "; nothing changed");
        }
        long millis;
        try {
            millis = Values.durationMillis(duration == null ? "" : duration);
        } catch (IllegalArgumentException e) {
            return new Outcome(false, e.getMessage() + "; nothing changed");
        }
        if (millis < 1_000 || millis > MAX_HOLD_MILLIS) {
            return new Outcome(false, "a hold of " + duration.trim() + ": give one from 1s to 24h; nothing changed");
        }
        long until = engine.hold(host, engine.now() + millis, "held by an operator " + via);
        if (until == Long.MIN_VALUE) {
            return notTracked(given, "; nothing changed");
        }
        log.info("{}: held until {} {}", host, Instant.ofEpochMilli(until), via);
        HostState state = engine.host(host);
        boolean observed = state != null && engine.modeFor(state.policy()) == Mode.OBSERVE;
        return new Outcome(true, host + " held until " + Instant.ofEpochMilli(until) + (observed
                ? ": observed, its requests are still sent, and counted as would-fail-fast until then"
                : ": its requests fail fast until then")
                + " (release lifts it; in a fleet that shares a store, every JVM holds it, and it ends on its own)");
    }

    @Override
    public String forget(String host) {
        return forgetHost(host, OVER_JMX).line;
    }

    Outcome forgetHost(String given, String via) {
        String host = tracked(given);
        if (host == null) {
            return notTracked(given, "; nothing changed");
        }
        if (engine.forget(host)) {
            log.info("{}: forgotten {}", host, via);
            return new Outcome(true, host + " forgotten: all that was known of it is dropped, as if never seen");
        }
        return new Outcome(false, host + " has a request in flight, and is not forgotten; try again");
    }

    @Override
    public String reload(String file) {
        return reloadPolicies(file, OVER_JMX).line;
    }

    Outcome reloadPolicies(String file, String via) {
        if (policies == null) {
            return new Outcome(false, "policies cannot be reloaded in this JVM");
        }
        return policies.reload(file, via);
    }

    @Override
    public String describePolicies(String host) {
        return policies == null ? "" : policies.describe(host);
    }

    @Override
    public String explain(String host) {
        return explainHost(host).line;
    }

    Outcome explainHost(String given) {
        String key = tracked(given);
        HostState host = key == null ? null : engine.host(key);
        if (host == null) {
            return notTracked(given, "");
        }
        long now = engine.now();
        return new Outcome(true, HostExplanation.of(host.snapshot(now), now));
    }

    /** The key the engine tracks {@code given} as: "host:port" as given, or a host alone when one port of it is tracked. */
    private String tracked(String given) {
        if (given == null || given.trim().isEmpty()) {
            return null;
        }
        String wanted = given.trim();
        HostState exact = engine.host(wanted);
        if (exact != null) {
            return exact.key();
        }
        String found = null;
        for (HostState host : engine.hosts()) {
            String key = host.key();
            if (key.regionMatches(true, 0, wanted + ":", 0, wanted.length() + 1) && key.lastIndexOf(':') == wanted.length()) {
                if (found != null) {
                    return null; // two ports of it: which one is for the operator to say
                }
                found = key;
            }
        }
        return found;
    }

    /** Why {@code given} names no host this JVM tracks, and what it does track; {@code then}: what that means for the command. */
    private Outcome notTracked(String given, String then) {
        List<String> keys = new ArrayList<>();
        List<String> ports = new ArrayList<>();
        for (HostState host : engine.hosts()) {
            keys.add(host.key());
            if (given != null && host.key().regionMatches(true, 0, given.trim() + ":", 0, given.trim().length() + 1)) {
                ports.add(host.key());
            }
        }
        if (ports.size() > 1) {
            Collections.sort(ports);
            return new Outcome(false, given + " is tracked on more than one port (" + String.join(", ", ports) + "); name one as host:port");
        }
        Collections.sort(keys);
        String known = keys.isEmpty() ? "no host is tracked" : "tracked: " + (keys.size() <= 10 ? String.join(", ", keys)
                : String.join(", ", keys.subList(0, 10)) + " and " + (keys.size() - 10) + " more");
        return new Outcome(false, given + " is not tracked (" + known + ")" + then);
    }
}
