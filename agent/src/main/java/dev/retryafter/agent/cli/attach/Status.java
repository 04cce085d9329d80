package dev.retryafter.agent.cli.attach;

import com.sun.tools.attach.VirtualMachine;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code status PID}: starts the target's local management agent (JMX over a local connection only
 * this user can open), reads the {@code dev.retryafter} MBeans and prints the agent's line and one
 * line per host.
 */
final class Status {

    static final String[] HOST_ATTRIBUTES = {"Host", "Category", "Requests", "Refusals", "Retries", "GivenUp", "WaitedMillis",
            "InFlight", "MaxConcurrency", "PacePerMinute", "LearnedCeiling", "HeldUntil", "LastReason"};

    private Status() {
    }

    static int print(String pid, PrintStream out) throws Commands.Failure {
        VirtualMachine vm = Targets.connect(pid);
        String address;
        String running;
        try {
            running = Targets.properties(vm, pid).getProperty(Targets.RUNNING_PROPERTY);
            if (running == null) {
                throw new Commands.Failure("retry-after-agent is not on in " + pid + " (attach it with: attach " + pid + " [ARGUMENT])");
            }
            address = vm.startLocalManagementAgent();
        } catch (IOException e) {
            throw new Commands.Failure("cannot start the local JMX agent in " + pid + ": " + e.getMessage());
        } finally {
            try {
                vm.detach();
            } catch (IOException e) {
                // gone: the connection below says so
            }
        }
        try (JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(address))) {
            MBeanServerConnection server = connector.getMBeanServerConnection();
            ObjectName agentName = new ObjectName("dev.retryafter:type=Agent");
            if (!server.isRegistered(agentName)) {
                out.println("retry-after-agent " + running + " in " + pid + ": on; no MBeans yet (they appear two seconds after its first governed request)");
                return 0;
            }
            Map<String, Object> agent = read(server, agentName, "Version", "Mode", "Enabled", "PolicyFile", "PolicyLoadedAt", "HostsTracked");
            out.println(String.format(Locale.ROOT, "retry-after-agent %s in %s: mode %s, %s, policies from %s (loaded %s), %s hosts tracked",
                    agent.get("Version"), pid, agent.get("Mode"), Boolean.TRUE.equals(agent.get("Enabled")) ? "enabled" : "DISABLED",
                    agent.get("PolicyFile"), agent.get("PolicyLoadedAt"), agent.get("HostsTracked")));
            Set<ObjectName> names = server.queryNames(new ObjectName("dev.retryafter:type=Host,*"), null);
            List<Map<String, Object>> hosts = new ArrayList<>();
            for (ObjectName name : names) {
                hosts.add(read(server, name, HOST_ATTRIBUTES));
            }
            hosts.sort((a, b) -> String.valueOf(a.get("Host")).compareTo(String.valueOf(b.get("Host"))));
            table(hosts, out);
            return 0;
        } catch (IOException e) {
            throw new Commands.Failure("cannot read the MBeans of " + pid + ": " + e.getMessage());
        } catch (javax.management.JMException e) {
            throw new Commands.Failure("unexpected MBeans in " + pid + ": " + e);
        }
    }

    private static Map<String, Object> read(MBeanServerConnection server, ObjectName name, String... attributes)
            throws IOException, javax.management.JMException {
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
