package dev.retryafter.agent;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.log.AgentLogger;
import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.instrument.HookDispatcher;
import dev.retryafter.agent.config.AgentConfig;
import dev.retryafter.agent.config.Policies;
import dev.retryafter.agent.engine.Mode;
import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.store.file.FileKnowledgeStore;
import dev.retryafter.agent.engine.HostSnapshot;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.ClientInstrumentation;
import dev.retryafter.agent.instrument.SelfGuardedStrategies;
import dev.retryafter.agent.instrument.UngovernedClients;
import dev.retryafter.agent.jmx.CommandMailbox;
import dev.retryafter.agent.jmx.ManagementBeans;
import dev.retryafter.agent.metrics.MetricsEndpoint;
import dev.retryafter.agent.metrics.MetricsPage;
import dev.retryafter.agent.store.redis.FleetStores;
import dev.retryafter.agent.store.redis.RedisKnowledgeStore;
import dev.retryafter.agent.report.DecisionLog;
import dev.retryafter.agent.report.ExitReport;

import java.lang.instrument.Instrumentation;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Builds the engine, connects it to the hooks, instruments the clients, and arranges the exit report.
 *
 * <p>No lambdas or method references here, nor on the way from here to a first governed request:
 * a JVM's first lambda links the invokedynamic machinery, some 90 ms on Java 8 and 15 ms on 17, and
 * each one after it spins a class (1 to 3 ms). Anonymous classes load from the jar instead. The
 * start-up test ({@code it.StartUpTest}) fails when one creeps back in.
 */
final class AgentInstaller {

    private AgentInstaller() {
    }

    /** All or nothing: if any step fails, what was installed is taken out again, and the failure thrown. */
    static void install(AgentConfig config, Instrumentation instrumentation) throws Exception {
        AgentLogger log = AgentLog.logger();
        Clock clock = Clock.system();
        DecisionLog decisions = new DecisionLog(log, clock);
        RetryEngine.Builder builder = RetryEngine.builder().clock(clock).policies(config.policies()).mode(config.mode())
                .listener(decisions);
        FileKnowledgeStore state = openState(config.stateFile(), clock, log);
        // With both a state file and a fleet store, the file is this JVM's copy under the fleet's:
        // read at start, written as ever, and what the JVM carries on with while Redis is gone.
        // The policies in force, for the fleet store's windows: a reload replaces them.
        AtomicReference<Policies> policiesNow = new AtomicReference<>(config.policies());
        RedisKnowledgeStore fleet = openFleet(config, clock, state, policiesNow, log);
        if (fleet != null) {
            builder.knowledge(fleet);
        } else if (state != null) {
            builder.knowledge(state);
        }
        RetryEngine engine = builder.build();
        CallDepth depth = new CallDepth();
        GoverningSwitch governing = new GoverningSwitch();
        PolicyControl policies = new PolicyControl(config, engine, policiesNow, log);
        // Made now, registered only at the first governed request: see ManagementBeans.
        ManagementBeans beans = new ManagementBeans(engine, governing, RetryAfterAgent.version(), config.source(),
                System.currentTimeMillis(), log, instrumentation, policies);
        SelfGuardedStrategies selfGuarded = new SelfGuardedStrategies();
        AgentHooks.install(new HookDispatcher(engine, depth, governing, selfGuarded, new Runnable() {
            @Override
            public void run() {
                beans.firstUse();
            }
        }));
        UngovernedClients ungoverned = new UngovernedClients(log.warnLines());
        Thread report = null;
        try {
            // The default place going unused is said at debug level only: nobody asked for it.
            final boolean chosen = config.classCache() != null;
            ClientInstrumentation.install(instrumentation, AgentInstaller.class.getClassLoader(), ungoverned, selfGuarded,
                    classCacheDirectory(config), new Consumer<String>() {
                        @Override
                        public void accept(String why) {
                            String line = "no class cache: " + why + "; client classes are changed afresh at every start";
                            if (chosen) {
                                log.warn(line);
                            } else {
                                log.debug(line);
                            }
                        }
                    });
            final StateSaving saving = state == null ? null : new StateSaving(state, log.infoLines(), log.warnLines());
            report = new Thread(new Runnable() {
                @Override
                public void run() {
                    try {
                        if (saving != null) {
                            saving.atExit(); // first: the report is the one that may be slow
                        }
                        report(engine, config, ungoverned, log);
                    } catch (Throwable t) { // never to the application's handler for uncaught exceptions, at its exit
                        AgentLog.failure("the report at exit", t);
                    }
                }
            }, "retry-after-agent-report");
            Runtime.getRuntime().addShutdownHook(report); // throws when attached while the JVM shuts down: the agent is off
            if (saving != null) {
                saving.start(config.stateFile().intervalMillis());
            }
        } catch (Exception | Error e) {
            AgentHooks.install(null); // any class already changed calls into hooks that now say "run the original"
            removeShutdownHook(report); // an agent that says it is off writes no report at exit
            throw e;
        }
        log.info("on; policies from {}: {}; knowledge in {}; mode {}", config.source(), config.policies(),
                fleet != null ? config.store() : state != null ? "memory, kept in the state file " + state.file() : "memory",
                config.mode().label()
                        + (config.mode() == Mode.OBSERVE ? " (decisions are logged as what it would do; the traffic is left alone)" : ""));
        try {
            policies.watch(beans);
        } catch (Throwable t) { // the agent is on all the same: only reloading is lost
            AgentLog.failure("watching the policy file for changes", t);
        }
        if (config.metrics() != null) {
            try {
                MetricsEndpoint.start(config.metrics(), new MetricsPage(engine, governing, RetryAfterAgent.version()), log);
            } catch (Throwable t) { // the agent is on all the same: only the metrics are lost
                log.error("no metrics endpoint: it could not be started (" + t + "); the agent governs as ever");
            }
        }
        try {
            CommandMailbox.start(beans);
        } catch (Throwable t) { // the agent is on all the same: only the command line's mailbox is lost
            AgentLog.failure("starting the command mailbox", t);
        }
    }

    private static void removeShutdownHook(Thread report) {
        try {
            if (report != null) {
                Runtime.getRuntime().removeShutdownHook(report);
            }
        } catch (RuntimeException e) { // the JVM is shutting down, or the hook was never added
            // nothing more to undo
        }
    }

    /** Where changed client classes are kept for the next run; null for nowhere (off, or no home directory). */
    private static Path classCacheDirectory(AgentConfig config) {
        String setting = config.classCache();
        if (AgentConfig.CLASS_CACHE_OFF.equals(setting)) {
            return null;
        }
        return setting != null ? Paths.get(setting)
                : ClientInstrumentation.defaultCacheDirectory(System.getenv("XDG_CACHE_HOME"), System.getProperty("user.home"));
    }

    /** The fleet's store on Redis; null when none is configured or it cannot be made (then this JVM's knowledge is its own). */
    private static RedisKnowledgeStore openFleet(AgentConfig config, Clock clock, FileKnowledgeStore state,
                                                 AtomicReference<Policies> policiesNow, AgentLogger log) {
        if (!config.store().isShared()) {
            return null; // not even the fleet's classes loaded: they cost start-up time
        }
        try {
            return FleetStores.create(config, clock, state, policiesNow::get);
        } catch (Throwable t) {
            log.warn("the fleet store " + config.store() + " cannot be used (" + t.getClass().getName()
                    + "); this JVM's knowledge stays its own");
            return null;
        }
    }

    /** The state file, read; null when none is configured or it cannot be opened at all (then learning starts afresh). */
    private static FileKnowledgeStore openState(AgentConfig.StateFile settings, Clock clock, AgentLogger log) {
        if (settings.path() == null) {
            return null;
        }
        try {
            FileKnowledgeStore state = FileKnowledgeStore.open(Paths.get(settings.path()), clock, settings.maxAgeMillis(), log.warnLines());
            log.info("learned state from {}: {} hosts", state.file(), state.snapshot().size());
            return state;
        } catch (Throwable t) {
            log.warn("state file " + settings.path() + " cannot be used (" + t + "); starting cold, and not writing it");
            return null;
        }
    }

    private static void report(RetryEngine engine, AgentConfig config, UngovernedClients ungoverned, AgentLogger log) {
        try {
            List<HostSnapshot> snapshots = ExitReport.snapshots(engine.hosts(), engine.now());
            boolean anyGoverned = false;
            for (HostSnapshot snapshot : snapshots) {
                anyGoverned |= snapshot.requests > 0;
            }
            String note = UngovernedClients.note(ungoverned.loaded(), anyGoverned);
            if (note != null) {
                log.warn(note);
            }
            if (config.reportPath() != null) {
                ExitReport.writeJson(config.reportPath(), snapshots, engine.now(), note);
                log.info("report of {} hosts written to {}", snapshots.size(), config.reportPath());
            } else {
                for (HostSnapshot snapshot : snapshots) {
                    log.info(ExitReport.line(snapshot));
                }
            }
        } catch (Exception e) {
            log.error("could not write the report to " + config.reportPath(), e);
        }
    }
}
