package dev.retryafter.agent;

import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.config.AgentConfig;
import dev.retryafter.agent.engine.HostSnapshot;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.ClientInstrumentation;
import dev.retryafter.agent.instrument.UngovernedClients;
import dev.retryafter.agent.report.DecisionLog;
import dev.retryafter.agent.report.ExitReport;
import org.slf4j.Logger;

import java.lang.instrument.Instrumentation;
import java.util.List;

/** Builds the engine, connects it to the hooks, instruments the clients, and arranges the exit report. */
final class AgentInstaller {

    private AgentInstaller() {
    }

    /** All or nothing: if any step fails, what was installed is taken out again, and the failure thrown. */
    static void install(AgentConfig config, Instrumentation instrumentation) throws Exception {
        Logger log = AgentLog.logger();
        RetryEngine engine = RetryEngine.builder().policies(config.policies()).listener(new DecisionLog(log)).build();
        CallDepth depth = new CallDepth();
        AgentHooks.install(new HookDispatcher(engine, depth));
        UngovernedClients ungoverned = new UngovernedClients();
        try {
            ClientInstrumentation.install(instrumentation, AgentInstaller.class.getClassLoader(), ungoverned);
        } catch (Exception | Error e) {
            AgentHooks.install(null); // any class already changed calls into hooks that now say "run the original"
            throw e;
        }
        Thread report = new Thread(() -> report(engine, config, ungoverned, log), "retry-after-agent-report");
        Runtime.getRuntime().addShutdownHook(report);
        log.info("on; policies from {}: {}", config.source(), config.policies());
    }

    private static void report(RetryEngine engine, AgentConfig config, UngovernedClients ungoverned, Logger log) {
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
