package dev.retryafter.it.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The agent's JSON exit report, read back: one entry per host. */
public final class AgentReport {

    private static final Pattern HOST = Pattern.compile("\\{\"host\": \"([^\"]+)\"(.*?)\\}", Pattern.DOTALL);

    public final List<Host> hosts = new ArrayList<>();

    public static AgentReport read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new AssertionError("the agent wrote no report at " + file);
        }
        AgentReport report = new AgentReport();
        Matcher m = HOST.matcher(Files.readString(file));
        while (m.find()) {
            report.hosts.add(new Host(m.group(1), m.group(2)));
        }
        return report;
    }

    public Host host(String hostAndPort) {
        return hosts.stream().filter(h -> h.name.equals(hostAndPort)).findFirst()
                .orElseThrow(() -> new AssertionError("no host " + hostAndPort + " in the report: " + hosts));
    }

    /** One host's figures. */
    public static final class Host {
        public final String name;
        private final String fields;

        Host(String name, String fields) {
            this.name = name;
            this.fields = fields;
        }

        public long number(String field) {
            Matcher m = Pattern.compile("\"" + field + "\": (-?[0-9.]+)").matcher(fields);
            if (!m.find()) {
                throw new AssertionError("no number " + field + " for " + name + " in " + fields);
            }
            return (long) Double.parseDouble(m.group(1));
        }

        public String text(String field) {
            Matcher m = Pattern.compile("\"" + field + "\": \"([^\"]*)\"").matcher(fields);
            return m.find() ? m.group(1) : null;
        }

        @Override
        public String toString() {
            return name + fields;
        }
    }
}
