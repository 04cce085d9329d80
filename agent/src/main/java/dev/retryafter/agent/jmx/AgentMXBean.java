package dev.retryafter.agent.jmx;

/** The agent in this JVM, {@code dev.retryafter:type=Agent}. Open types only. */
public interface AgentMXBean {

    String getVersion();

    /** "enforce" or "observe"; writable at run time. */
    String getMode();

    void setMode(String mode);

    /** False: every new call runs as if the agent were not there; writable at run time. */
    boolean isEnabled();

    void setEnabled(boolean enabled);

    /** Where the policies came from: the file, the argument, or "defaults". */
    String getPolicyFile();

    /** When those policies were loaded, ISO-8601. */
    String getPolicyLoadedAt();

    int getHostsTracked();

    /** Lifts the hold on "host:port" (and the wait it imposed); says what it did. */
    String releaseHold(String host);

    /** Drops all this JVM tracks and knows of "host:port", as if never seen; says what it did. */
    String forget(String host);
}
