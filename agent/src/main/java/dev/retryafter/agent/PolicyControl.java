package dev.retryafter.agent;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.log.AgentLogger;
import dev.retryafter.agent.config.AgentConfig;
import dev.retryafter.agent.config.Policies;
import dev.retryafter.agent.config.PolicyDescription;
import dev.retryafter.agent.config.PolicyReloader;
import dev.retryafter.agent.engine.DaemonThreads;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.jmx.ManagementBeans;
import dev.retryafter.agent.jmx.Outcome;
import dev.retryafter.agent.jmx.PolicyControls;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The policies in force and the file they come from: looked at every {@code reload} (5 s) for a valid
 * edit, which moves every host to its new policy for its next requests (what was learned stays), and
 * read again, or replaced by another file, when JMX or the command line asks. A change of {@code mode}
 * in the file switches the engine's mode, as the run-time switch does. One at a time: the poller and
 * the operators' requests take turns.
 */
final class PolicyControl implements PolicyControls, PolicyReloader.Target {

    private final RetryEngine engine;
    private final AtomicReference<Policies> policiesNow;
    private final long reloadMillis;
    private final PolicyReloader reloader;
    private ManagementBeans beans;
    private ScheduledExecutorService poller;
    /** Where the agent-wide mode came from: the file's line, the built-in default, or a switch at run time. */
    private volatile String modeOrigin;
    /** A switch at run time holds until the file's mode itself changes, as the engine's mode does. */
    private volatile boolean modeSwitchedAtRunTime;

    PolicyControl(AgentConfig config, RetryEngine engine, AtomicReference<Policies> policiesNow, AgentLogger log) {
        this.engine = engine;
        this.policiesNow = policiesNow;
        this.reloadMillis = config.reloadMillis();
        this.reloader = new PolicyReloader(config, this, log.infoLines(), log.warnLines());
        this.modeOrigin = config.modeOrigin();
    }

    /** Starts looking at the policy file, if there is one and {@code reload} is not off; {@code beans} hear of each reload. */
    synchronized void watch(ManagementBeans beans) {
        this.beans = beans;
        if (reloader.file() != null) {
            startPolling();
        }
    }

    private void startPolling() {
        if (poller != null || reloadMillis <= 0) {
            return;
        }
        poller = Executors.newSingleThreadScheduledExecutor(new DaemonThreads("retry-after-agent-reload"));
        poller.scheduleWithFixedDelay(new Runnable() {
            @Override
            public void run() {
                try {
                    check();
                } catch (Throwable t) {
                    AgentLog.failure("reloading the policy file", t); // the policy in force stays
                }
            }
        }, reloadMillis, reloadMillis, TimeUnit.MILLISECONDS);
    }

    private synchronized void check() {
        reloader.check();
    }

    @Override
    public void apply(AgentConfig next, boolean modeChanged) {
        policiesNow.set(next.policies());
        engine.usePolicies(next.policies());
        if (modeChanged) {
            engine.switchMode(next.mode());
            modeSwitchedAtRunTime = false;
        }
        if (!modeSwitchedAtRunTime) {
            modeOrigin = next.modeOrigin();
        }
        if (beans != null) {
            beans.policyLoaded(reloader.file() != null ? reloader.file().toString() : next.source(), System.currentTimeMillis());
        }
    }

    @Override
    public synchronized Outcome reload(String file, String via) {
        String by = " (" + via + ")";
        PolicyReloader.Result result;
        if (file == null || file.trim().isEmpty()) {
            result = reloader.reloadNow(by);
        } else {
            Path path = Paths.get(file.trim());
            if (!path.isAbsolute()) {
                return new Outcome(false, file + ": name the policy file by its absolute path (this JVM's working directory is not yours)");
            }
            result = reloader.pointAt(path, by);
            if (result.inForce) {
                startPolling();
                System.clearProperty(RetryAfterAgent.START_PROBLEM_PROPERTY); // the file asked for at start is no longer what matters
            }
        }
        return new Outcome(result.inForce, result.line);
    }

    @Override
    public synchronized String describe(String host) {
        PolicyDescription description = new PolicyDescription(reloader.current(), engine.mode(), modeOrigin);
        return host == null || host.trim().isEmpty() ? description.all() : description.forHost(host);
    }

    @Override
    public synchronized String ownModes() {
        return PolicyDescription.ownModes(reloader.current());
    }

    @Override
    public void modeSwitched(String how) {
        modeOrigin = how;
        modeSwitchedAtRunTime = true;
    }
}
