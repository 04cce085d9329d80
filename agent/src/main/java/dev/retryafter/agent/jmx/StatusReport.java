package dev.retryafter.agent.jmx;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code java -jar retry-after-agent.jar status PID} prints: the agent's line and one line per
 * host, read from the agent's MBeans in this JVM. Never makes the platform MBean server: before
 * {@link ManagementBeans} has made it there is nothing to read, and making it early is what that
 * class waits to avoid.
 */
public final class StatusReport {

    static final String[] HOST_ATTRIBUTES = {"Host", "Category", "Requests", "Refusals", "Retries", "GivenUp", "WaitedMillis",
            "InFlight", "MaxConcurrency", "PacePerMinute", "LearnedCeiling", "HeldUntil", "LastReason"};

    private StatusReport() {
    }

    /** Prints the status of this JVM, whose process id the operator gave as {@code pid}. */
    public static void print(String pid, String running, PrintStream out) throws JMException {
        ObjectName agentName = new ObjectName(ManagementBeans.DOMAIN + ":type=Agent");
        MBeanServer server = serverWith(agentName);
        if (server == null) {
            out.println("retry-after-agent " + running + " in " + pid + ": on; no MBeans yet (they appear two seconds after its first governed request)");
            return;
        }
        Map<String, Object> agent = read(server, agentName, "Version", "Mode", "Enabled", "PolicyFile", "PolicyLoadedAt", "HostsTracked");
        out.println(String.format(Locale.ROOT, "retry-after-agent %s in %s: mode %s, %s, policies from %s (loaded %s), %s hosts tracked",
                agent.get("Version"), pid, agent.get("Mode"), Boolean.TRUE.equals(agent.get("Enabled")) ? "enabled" : "DISABLED",
                agent.get("PolicyFile"), agent.get("PolicyLoadedAt"), agent.get("HostsTracked")));
        List<Map<String, Object>> hosts = new ArrayList<>();
        for (ObjectName name : server.queryNames(new ObjectName(ManagementBeans.DOMAIN + ":type=Host,*"), null)) {
            hosts.add(read(server, name, HOST_ATTRIBUTES));
        }
        Collections.sort(hosts, new Comparator<Map<String, Object>>() {
            @Override
            public int compare(Map<String, Object> a, Map<String, Object> b) {
                return String.valueOf(a.get("Host")).compareTo(String.valueOf(b.get("Host")));
            }
        });
        table(hosts, out);
    }

    /** The MBean server the agent registered in, if it has yet: found among those made, none made here. */
    private static MBeanServer serverWith(ObjectName agentName) {
        for (MBeanServer server : MBeanServerFactory.findMBeanServer(null)) {
            if (server.isRegistered(agentName)) {
                return server;
            }
        }
        return null;
    }

    private static Map<String, Object> read(MBeanServer server, ObjectName name, String... attributes) throws JMException {
        Map<String, Object> values = new HashMap<>();
        AttributeList list = server.getAttributes(name, attributes);
        for (Attribute attribute : list.asList()) {
            values.put(attribute.getName(), attribute.getValue());
        }
        return values;
    }

    static void table(List<Map<String, Object>> hosts, PrintStream out) {
        String format = "%-28s %-20s %9s %9s %8s %8s %9s %7s %9s %8s %-24s %s%n";
        out.printf(Locale.ROOT, format, "HOST", "CATEGORY", "REQUESTS", "REFUSALS", "RETRIES", "GIVEN UP", "WAITED", "FLIGHT",
                "PACE/MIN", "CEILING", "HELD UNTIL", "LAST REASON");
        for (Map<String, Object> h : hosts) {
            double pace = number(h.get("PacePerMinute")).doubleValue();
            int ceiling = number(h.get("LearnedCeiling")).intValue();
            out.printf(Locale.ROOT, format, h.get("Host"), h.get("Category"), h.get("Requests"), h.get("Refusals"), h.get("Retries"),
                    h.get("GivenUp"), String.format(Locale.ROOT, "%.1fs", number(h.get("WaitedMillis")).longValue() / 1000.0),
                    h.get("InFlight") + "/" + h.get("MaxConcurrency"), pace > 0 ? String.format(Locale.ROOT, "%.1f", pace) : "-",
                    ceiling >= 0 ? Integer.toString(ceiling) : "-", dash(h.get("HeldUntil")), dash(h.get("LastReason")));
        }
        if (hosts.isEmpty()) {
            out.println("(no host tracked)");
        }
    }

    private static Number number(Object value) {
        return value instanceof Number ? (Number) value : 0;
    }

    private static String dash(Object value) {
        return value == null || "".equals(value) ? "-" : value.toString();
    }
}
