package dev.retryafter.agent;

import org.slf4j.Logger;
import org.slf4j.simple.SimpleLogger;
import org.slf4j.simple.SimpleServiceProvider;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's own logger: slf4j-simple, relocated inside the agent jar, to standard error. It is
 * made directly rather than found through slf4j's provider lookup, so nothing the application
 * configures for its own slf4j (a provider property, a binding on the class path) reaches it.
 */
public final class AgentLog {

    /** Every line the agent writes carries this name. */
    public static final String NAME = "retry-after-agent";

    private static final Set<String> REPORTED = ConcurrentHashMap.newKeySet();
    private static volatile Logger logger;

    private AgentLog() {
    }

    public static Logger logger() {
        Logger l = logger;
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
        if (REPORTED.add(where)) {
            logger().error("internal failure in " + where + "; falling back to the client's own behaviour", failure);
        }
    }

    private static Logger create() {
        // These names are relocated with slf4j-simple, so they are the agent's alone.
        setIfAbsent(SimpleLogger.LOG_FILE_KEY, "System.err");
        setIfAbsent(SimpleLogger.SHOW_DATE_TIME_KEY, "true");
        setIfAbsent(SimpleLogger.DATE_TIME_FORMAT_KEY, "HH:mm:ss.SSS");
        setIfAbsent(SimpleLogger.SHOW_THREAD_NAME_KEY, "false");
        setIfAbsent(SimpleLogger.LEVEL_IN_BRACKETS_KEY, "false");
        SimpleServiceProvider provider = new SimpleServiceProvider();
        provider.initialize();
        return provider.getLoggerFactory().getLogger(NAME);
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
