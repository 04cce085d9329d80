package dev.retryafter.agent.log;

import dev.retryafter.agent.config.LogSettings;

import java.io.IOException;
import java.nio.file.Paths;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Where the agent's logger is had, and its failures reported once each. */
public final class AgentLog {

    /** Every line the agent writes carries this name. */
    public static final String NAME = "retry-after-agent";

    private static final Set<String> REPORTED = ConcurrentHashMap.newKeySet();
    private static volatile AgentLogger logger;

    private AgentLog() {
    }

    public static AgentLogger logger() {
        AgentLogger l = logger;
        if (l == null) {
            synchronized (AgentLog.class) {
                if (logger == null) {
                    logger = create();
                }
                l = logger;
            }
        }
        return l;
    }

    /**
     * Something inside the agent failed; the caller falls back to the client's own behaviour. Logged
     * once per place, so a broken agent announces itself without flooding the application's output.
     */
    public static void failure(String where, Throwable failure) {
        try {
            if (REPORTED.add(where)) {
                logger().error("internal failure in " + where + "; falling back to the client's own behaviour", failure);
            }
        } catch (Throwable t) {
            // Called where the agent falls back: nothing of the log's may reach the application from here.
        }
    }

    /**
     * The policy file's {@code log-*} settings, from now on: the level (unless the system property set
     * one, which is stronger), the file, the format. A file that cannot be opened is said on standard
     * error, and the log stays there.
     */
    public static void use(LogSettings settings) {
        AgentLogger log = logger();
        String level = System.getProperty(AgentLogger.LEVEL_PROPERTY) != null ? null : settings.level();
        LogFile file = null;
        if (settings.file() != null) {
            try {
                file = LogFile.open(Paths.get(settings.file()));
            } catch (IOException | RuntimeException e) {
                log.warn("the log file {} cannot be opened ({}); the log goes to standard error", settings.file(), e.toString());
            }
        }
        log.use(level, file, settings.json());
    }

    private static AgentLogger create() {
        return new AgentLogger(NAME, System.getProperty(AgentLogger.LEVEL_PROPERTY));
    }
}
