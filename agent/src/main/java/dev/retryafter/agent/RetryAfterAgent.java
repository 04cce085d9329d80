package dev.retryafter.agent;

import dev.retryafter.agent.config.AgentArguments;
import dev.retryafter.agent.config.AgentConfig;
import dev.retryafter.agent.config.ConfigException;

import java.lang.instrument.Instrumentation;

/**
 * {@code -javaagent:retry-after-agent.jar[=policies.properties | =config=PATH,key=value,...]}, or
 * attached to a running JVM. Never breaks the application: a bad policy file is reported with its
 * file, line and key, and the agent stays off; any failure while starting leaves every class as it was.
 */
public final class RetryAfterAgent {

    private static boolean started;

    private RetryAfterAgent() {
    }

    public static void premain(String argument, Instrumentation instrumentation) {
        start(argument, instrumentation);
    }

    public static void agentmain(String argument, Instrumentation instrumentation) {
        start(argument, instrumentation);
    }

    private static synchronized void start(String argument, Instrumentation instrumentation) {
        if (started) {
            AgentLog.logger().warn("already running; the second attach is ignored");
            return;
        }
        AgentConfig config;
        try {
            config = AgentArguments.load(argument, System.getenv());
        } catch (ConfigException e) {
            AgentLog.logger().error("{}; the agent is off and the application runs unchanged", e.getMessage());
            return;
        } catch (Throwable t) {
            AgentLog.logger().error("could not read the agent argument '" + argument + "'; the agent is off and the application runs unchanged", t);
            return;
        }
        if (!config.enabled()) {
            AgentLog.logger().info("off (enabled=false, from {}); no class is changed", config.source());
            return;
        }
        try {
            BootstrapInjector.inject(instrumentation);
            AgentInstaller.install(config, instrumentation);
            started = true;
        } catch (Throwable t) {
            AgentLog.logger().error("could not start; the agent is off and the application runs unchanged", t);
        }
    }
}
