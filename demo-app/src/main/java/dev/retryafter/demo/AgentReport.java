package dev.retryafter.demo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The agent's JSON exit report ({@code report=PATH}), read back: one entry per host. The demo
 * reads it to show what the agent learned; the integration tests read it to assert on it.
 */
public final class AgentReport {

    private static final Pattern HOST = Pattern.compile("\\{\"host\": \"([^\"]+)\"(.*?)\\}", Pattern.DOTALL);

    private final List<Host> hosts;

    private AgentReport(List<Host> hosts) {
        this.hosts = Collections.unmodifiableList(hosts);
    }

    public static AgentReport read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException("the agent wrote no report at " + file);
        }
        List<Host> hosts = new ArrayList<>();
        Matcher m = HOST.matcher(new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
        while (m.find()) {
            hosts.add(new Host(m.group(1), m.group(2)));
        }
        return new AgentReport(hosts);
    }

    public List<Host> hosts() {
        return hosts;
    }

    /** The entry for {@code host:port}; throws when the agent saw no such host. */
    public Host host(String hostAndPort) {
        for (Host host : hosts) {
            if (host.name.equals(hostAndPort)) {
                return host;
            }
        }
        throw new IllegalArgumentException("no host " + hostAndPort + " in the report: " + hosts);
    }

    /** One host's figures, by their names in the report. */
    public static final class Host {
        public final String name;
        private final String fields;

        Host(String name, String fields) {
            this.name = name;
            this.fields = fields;
        }

        /** A number; NaN when the field is null. */
        public double number(String field) {
            Matcher m = Pattern.compile("\"" + Pattern.quote(field) + "\": (null|-?[0-9.]+)").matcher(fields);
            if (!m.find()) {
                throw new IllegalArgumentException("no field " + field + " for " + name + " in " + fields);
            }
            return m.group(1).equals("null") ? Double.NaN : Double.parseDouble(m.group(1));
        }

        /** A string, or null. */
        public String text(String field) {
            Matcher m = Pattern.compile("\"" + Pattern.quote(field) + "\": \"([^\"]*)\"").matcher(fields);
            return m.find() ? m.group(1) : null;
        }

        @Override
        public String toString() {
            return name + fields;
        }
    }
}
