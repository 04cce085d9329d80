package dev.retryafter.agent;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.log.PlainLog;
import dev.retryafter.agent.bootstrap.BootstrapInjector;
import dev.retryafter.agent.config.AgentArguments;
import dev.retryafter.agent.config.AgentConfig;
import dev.retryafter.agent.config.BadPolicy;
import dev.retryafter.agent.config.ConfigException;
import dev.retryafter.agent.config.OffSwitch;

import java.lang.instrument.Instrumentation;

/**
 * {@code -javaagent:retry-after-agent.jar[=policies.properties | =config=PATH,key=value,...]}, or
 * attached to a running JVM. Never breaks the application, nor unleashes it: a bad policy file is
 * reported with its file, line and key, and the agent governs on its built-in defaults (or stays off,
 * with {@code on-bad-policy = off}); any failure while starting leaves every class as it was.
 */
public final class RetryAfterAgent {

    /**
     * Set to the version once the agent is on in this JVM: how {@code java -jar retry-after-agent.jar
     * attach} sees, from outside, that it is there already.
     */
    public static final String RUNNING_PROPERTY = "retry-after-agent.version";

    /**
     * Set when a start did not go as the argument asked (off, or on the built-in defaults), to the
     * line logged: {@code attach} reads it back and says it, not only "its log says why".
     */
    public static final String START_PROBLEM_PROPERTY = "retry-after-agent.start-problem";

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
        if (isSwitchedOff(argument)) {
            return;
        }
        AgentConfig config;
        try {
            config = AgentArguments.load(argument, System.getenv());
        } catch (ConfigException e) {
            if (BadPolicy.keepsAgentOff(argument)) {
                AgentLog.logger().error("{}; the agent is off (on-bad-policy = off) and the application runs unchanged", e.getMessage());
                startProblem(e.getMessage() + "; the agent is off (on-bad-policy = off)");
                return;
            }
            // Off, the agent would let the scraper hammer the portal it was attached to protect.
            AgentLog.logger().error("{}; the agent governs every host on its built-in defaults until the file is fixed and the JVM"
                    + " restarted (on-bad-policy = off keeps it off instead)", e.getMessage());
            config = AgentConfig.defaultsAfter(e.getMessage());
            startProblem(e.getMessage() + "; the agent governs every host on its built-in defaults");
        } catch (Throwable t) {
            AgentLog.logger().error("could not read the agent argument '" + argument + "'; the agent is off and the application runs unchanged", t);
            startProblem("could not read the agent argument '" + argument + "' (" + t + "); the agent is off");
            return;
        }
        if (!config.enabled()) {
            AgentLog.logger().info("off (enabled=false, from {}); no class is changed", config.source());
            startProblem("off (enabled=false, from " + config.source() + ")");
            return;
        }
        try {
            AgentLog.use(config.log()); // from here on, the log goes where the file says, as it says
        } catch (Throwable t) {
            AgentLog.failure("opening the log as the policy file says", t); // the log stays on standard error
        }
        try {
            BootstrapInjector.inject(instrumentation);
            AgentInstaller.install(config, instrumentation);
            started = true;
            System.setProperty(RUNNING_PROPERTY, version());
            if (!config.source().startsWith(AgentConfig.DEFAULTS_AFTER)) {
                System.clearProperty(START_PROBLEM_PROPERTY); // an earlier attach's problem is over
            }
        } catch (Throwable t) {
            AgentLog.logger().error("could not start; the agent is off and the application runs unchanged", t);
            startProblem("could not start (" + t + "); the agent is off");
        }
    }

    private static void startProblem(String line) {
        try {
            System.setProperty(START_PROBLEM_PROPERTY, line);
        } catch (Throwable t) {
            // only the command line's relay of the line is lost; the log has it
        }
    }

    /** The jar's {@code Implementation-Version}; "unknown" when run from classes. */
    static String version() {
        Package own = RetryAfterAgent.class.getPackage();
        String version = own == null ? null : own.getImplementationVersion();
        return version != null ? version : "unknown";
    }

    /**
     * Off is decided first, from the switch alone, and said in one plain line: nothing else of the
     * agent is loaded for it. Any failure here leaves the decision to the full read.
     */
    private static boolean isSwitchedOff(String argument) {
        String offBy;
        try {
            offBy = OffSwitch.offBy(argument, System.getenv());
        } catch (Throwable t) {
            return false;
        }
        if (offBy == null) {
            return false;
        }
        try {
            String line = new StringBuilder("off (enabled=false, from ").append(offBy)
                    .append("); no class is changed and no policy is read").toString(); // no +: see OffSwitch
            PlainLog.info(line);
            System.setProperty(START_PROBLEM_PROPERTY, line);
        } catch (Throwable t) {
            // off all the same: only the line was lost
        }
        return true;
    }
}
