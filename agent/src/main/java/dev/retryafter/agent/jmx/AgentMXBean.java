package dev.retryafter.agent.jmx;

/**
 * The agent in this JVM, {@code dev.retryafter:type=Agent}. Open types only. Registered with
 * descriptions and parameter names ({@link DescribedMBean}); each operation answers with one line
 * that says what changed, or why nothing did.
 */
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

    /** Holds "host:port" for {@code duration} (1s to 24h: 30m, 2h): its requests fail fast until then; says what it did. */
    String hold(String host, String duration);

    /** Drops all this JVM tracks and knows of "host:port", as if never seen; says what it did. */
    String forget(String host);

    /** Re-reads the policy file in force (an empty {@code file}), or reads {@code file} from now on; says what changed. */
    String reload(String file);

    /** The settings in force and where each came from: of every policy (an empty {@code host}), or of the one governing {@code host}. */
    String describePolicies(String host);

    /** Why "host:port"'s requests waited, cause by cause, and what the agent holds it to; or why it cannot say. */
    String explain(String host);
}
