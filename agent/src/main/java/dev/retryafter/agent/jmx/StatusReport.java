package dev.retryafter.agent.jmx;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code java -jar retry-after-agent.jar status PID} prints after {@code "retry-after-agent
 * VERSION in PID: "}: the agent's line and one line per host, from the agent's MBeans.
 */
final class StatusReport {

    static final String[] HOST_ATTRIBUTES = {"Host", "Category", "Requests", "Refusals", "Retries", "GivenUp", "WaitedMillis",
            "WaitedMillisByCause", "InFlight", "MaxConcurrency", "PacePerMinute", "LearnedCeiling", "RateLimitHints", "HeldUntil", "LastReason"};

    private StatusReport() {
    }

    /** The report, from the MBeans in {@code server}, the Agent MBean registered. */
    static String render(MBeanServer server) throws JMException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes);
        Map<String, Object> agent = read(server, new ObjectName(ManagementBeans.DOMAIN + ":type=Agent"),
                "Mode", "Enabled", "PolicyFile", "PolicyLoadedAt", "HostsTracked");
        out.println(String.format(Locale.ROOT, "mode %s, %s, policies from %s (loaded %s), %s hosts tracked",
                agent.get("Mode"), Boolean.TRUE.equals(agent.get("Enabled")) ? "enabled" : "DISABLED",
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
        out.flush();
        return bytes.toString();
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
        String format = "%-28s %-20s %9s %9s %8s %8s %9s %-26s %7s %9s %8s %-10s %-24s %s%n";
        out.printf(Locale.ROOT, format, "HOST", "CATEGORY", "REQUESTS", "REFUSALS", "RETRIES", "GIVEN UP", "WAITED", "MOSTLY FOR", "FLIGHT",
                "PACE/MIN", "CEILING", "HINTS", "HELD UNTIL", "LAST REASON");
        for (Map<String, Object> h : hosts) {
            double pace = number(h.get("PacePerMinute")).doubleValue();
            int ceiling = number(h.get("LearnedCeiling")).intValue();
            out.printf(Locale.ROOT, format, h.get("Host"), h.get("Category"), h.get("Requests"), h.get("Refusals"), h.get("Retries"),
                    h.get("GivenUp"), String.format(Locale.ROOT, "%.1fs", number(h.get("WaitedMillis")).longValue() / 1000.0),
                    mostlyFor(h.get("WaitedMillisByCause")), h.get("InFlight") + "/" + h.get("MaxConcurrency"), pace > 0 ? String.format(Locale.ROOT, "%.1f", pace) : "-",
                    ceiling >= 0 ? Integer.toString(ceiling) : "-", hintTrust(h.get("RateLimitHints")), dash(h.get("HeldUntil")),
                    dash(h.get("LastReason")));
        }
        if (hosts.isEmpty()) {
            out.println("(no host tracked)");
        }
    }

    /** The cause the host's requests waited for longest, as JMX's WaitedMillisByCause has it ({@code PACE}); - for none. */
    private static String mostlyFor(Object byCause) {
        if (!(byCause instanceof TabularData)) {
            return "-";
        }
        String most = "-";
        long longest = 0;
        for (Object row : ((TabularData) byCause).values()) {
            CompositeData cause = (CompositeData) row;
            long millis = number(cause.get("value")).longValue();
            if (millis > longest) {
                longest = millis;
                most = String.valueOf(cause.get("key"));
            }
        }
        return most;
    }

    /** The hints' standing in a word: believed, distrusted, or - for none; JMX has the rest. */
    private static String hintTrust(Object hints) {
        String text = hints == null ? "none" : hints.toString();
        int end = text.indexOf(' ');
        String word = end < 0 ? text : text.substring(0, end);
        return word.endsWith(":") ? word.substring(0, word.length() - 1) : "none".equals(word) ? "-" : word;
    }

    private static Number number(Object value) {
        return value instanceof Number ? (Number) value : 0;
    }

    private static String dash(Object value) {
        return value == null || "".equals(value) ? "-" : value.toString();
    }
}
