package dev.retryafter.agent.jmx;

import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanParameterInfo;
import javax.management.NotCompliantMBeanException;
import javax.management.StandardMBean;
import java.util.HashMap;
import java.util.Map;

/**
 * An MXBean as a JMX console shows it: the bean, each attribute, each operation and each parameter
 * described, and the parameters named ({@code host}, not {@code p0}), which the interface alone
 * cannot say on Java 8.
 */
final class DescribedMBean extends StandardMBean {

    private final String description;
    private final Map<String, String> texts;
    /** Operation name to its parameters' names and descriptions, in order. */
    private final Map<String, String[][]> parameters;

    private <T> DescribedMBean(T implementation, Class<T> type, String description, Map<String, String> texts,
                               Map<String, String[][]> parameters) throws NotCompliantMBeanException {
        super(implementation, type, true);
        this.description = description;
        this.texts = texts;
        this.parameters = parameters;
    }

    static DescribedMBean agent(AgentView view) throws NotCompliantMBeanException {
        Map<String, String> texts = new HashMap<>();
        texts.put("Version", "The agent's version");
        texts.put("Mode", "enforce or observe, for every policy that sets no mode of its own; writable at run time");
        texts.put("Enabled", "false: every new call runs as if the agent were not there (calls under way finish as they began); writable");
        texts.put("PolicyFile", "Where the policies in force came from: the file, the agent argument, or the defaults");
        texts.put("PolicyLoadedAt", "When the policies in force were loaded, ISO-8601");
        texts.put("HostsTracked", "How many host:port this JVM tracks now");
        texts.put("releaseHold", "Lifts the hold on host:port and the wait it imposed, so its next request goes; what was learned stays."
                + " A fleet's hold on Redis is not lifted. Answers with what it did");
        texts.put("forget", "Drops all this JVM tracks and knows of host:port, as if never seen; refused while a request to it is"
                + " in flight. Answers with what it did");
        texts.put("reload", "Re-reads the policy file in force (file empty), or reads file from now on (the agent argument's other"
                + " pairs still over it). A file that does not read changes nothing. Answers with what changed");
        texts.put("describePolicies", "The settings in force and where each came from (file and line, agent argument, inherited"
                + " default.KEY, built-in default, a switch at run time): of every policy (host empty), or of the one governing host");
        texts.put("hold", "Holds host:port for a while (1s to 24h): its requests fail fast until then, as in the agent's own holds;"
                + " releaseHold lifts it. In a fleet that shares a store every JVM holds it, and it ends on its own. Answers with what it did");
        texts.put("explain", "Why the host's requests waited, cause by cause (the log's names and words), and what the agent holds"
                + " it to: its pace and the limit learned, the cap, its category, refusals, holds, its last refusal's decision");
        Map<String, String[][]> parameters = new HashMap<>();
        String[] host = {"host", "host:port as the agent tracks it (127.0.0.1:8081, data.kingcounty.gov:443), or a host alone when one port of it is tracked"};
        parameters.put("releaseHold", new String[][] {host});
        parameters.put("forget", new String[][] {host});
        parameters.put("hold", new String[][] {host, {"duration", "how long: 30m, 2h (1s to 24h)"}});
        parameters.put("explain", new String[][] {host});
        parameters.put("reload", new String[][] {{"file", "a policy file path in this JVM's file system; empty to re-read the one in force"}});
        parameters.put("describePolicies", new String[][] {{"host", "host or host:port; empty for every policy"}});
        return new DescribedMBean(view, AgentMXBean.class, "retry-after-agent in this JVM: its mode, switch, policies and the"
                + " operations an operator steers it with", texts, parameters);
    }

    static DescribedMBean host(HostView view) throws NotCompliantMBeanException {
        Map<String, String> texts = new HashMap<>();
        texts.put("Host", "host:port");
        texts.put("Policy", "The policy the host falls under (default: none names it)");
        texts.put("Category", "What its Retry-After has shown to be: truthful, always_zero, constant_overstated, no_header, unknown");
        texts.put("RateLimitHints", "Its rate-limit headers: none, believed (with what they said last), or distrusted and why");
        texts.put("MedianRatio", "Real recovery over what the header said, median of recent streaks; NaN before a refusal with a header");
        texts.put("LearnedCeiling", "Successes per window before the refusal that taught one; -1 when none was learned");
        texts.put("WindowMillis", "The window its limit is counted in, milliseconds");
        texts.put("PacePerMinute", "The pace now, requests per minute; 0 when not paced");
        texts.put("InFlight", "Requests holding a permit now: sent, or waiting for their moment");
        texts.put("MaxConcurrency", "The cap on requests in flight (max-concurrency)");
        texts.put("Requests", "Requests made to it, retries included");
        texts.put("Refusals", "Refusals (429, 503, the retry-statuses) it answered");
        texts.put("Retries", "Refused requests the agent sent again");
        texts.put("GivenUp", "Requests whose last refusal went back to the application");
        texts.put("WaitedMillis", "All the time requests to it spent waiting, milliseconds");
        texts.put("WaitedMillisByCause", "The time requests to it waited before they were sent, by cause (a refusal's reason, PACE, "
                + "QUEUE_AT_CAP, RATE_LIMIT_HINTS, REFUSAL_WAIT), milliseconds");
        texts.put("LongestWaitMillis", "The longest single wait decided, milliseconds");
        texts.put("Holds", "Holds so far");
        texts.put("HeldRequests", "Requests failed fast because it was held");
        texts.put("EndedWhileWaiting", "Requests the application ended (cancelled, aborted, interrupted) while they waited for their turn");
        texts.put("Held", "Whether it is held now");
        texts.put("HeldUntil", "When the hold ends, ISO-8601; empty when not held");
        texts.put("LastDecision", "The decision line of the last refusal; empty before the first");
        texts.put("LastReason", "The last decision's named reason; empty before the first");
        texts.put("LastOutcome", "The last decision's outcome: RETRY, GIVE_UP, NOT_REPLAYABLE, HOLD; empty before the first");
        texts.put("LastDecisionAt", "When the last decision was taken, ISO-8601; empty before the first");
        return new DescribedMBean(view, HostMXBean.class, "One host:port the agent tracks, read from the same snapshot as the"
                + " exit report", texts, new HashMap<String, String[][]>());
    }

    @Override
    protected String getDescription(MBeanInfo info) {
        return description;
    }

    @Override
    protected String getDescription(MBeanAttributeInfo info) {
        return text(info.getName(), super.getDescription(info));
    }

    @Override
    protected String getDescription(MBeanOperationInfo info) {
        return text(info.getName(), super.getDescription(info));
    }

    @Override
    protected String getParameterName(MBeanOperationInfo operation, MBeanParameterInfo parameter, int sequence) {
        String[] named = parameter(operation, sequence);
        return named != null ? named[0] : super.getParameterName(operation, parameter, sequence);
    }

    @Override
    protected String getDescription(MBeanOperationInfo operation, MBeanParameterInfo parameter, int sequence) {
        String[] named = parameter(operation, sequence);
        return named != null ? named[1] : super.getDescription(operation, parameter, sequence);
    }

    /** The text of an attribute or operation; {@code otherwise} when it has none. */
    private String text(String name, String otherwise) {
        String text = texts.get(name);
        return text != null ? text : otherwise;
    }

    /** The operation's parameter's name and description; null when it has none. */
    private String[] parameter(MBeanOperationInfo operation, int sequence) {
        String[][] named = parameters.get(operation.getName());
        return named != null && sequence < named.length ? named[sequence] : null;
    }
}
