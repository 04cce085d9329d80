package dev.retryafter.demo;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The agent's JSON exit report ({@code report=PATH}), read back with a JSON parser: one entry per
 * host. The demo reads it to show what the agent learned; the integration tests read it to assert on
 * it. The fields are as docs/operating.md names them.
 */
public final class AgentReport {

    private final List<Host> hosts;
    private final String ungoverned;

    private AgentReport(List<Host> hosts, String ungoverned) {
        this.hosts = Collections.unmodifiableList(hosts);
        this.ungoverned = ungoverned;
    }

    public static AgentReport read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException("the agent wrote no report at " + file);
        }
        JsonObject report;
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            report = JsonParser.parseReader(in).getAsJsonObject();
        } catch (JsonParseException | IllegalStateException e) {
            throw new IOException("the agent's report at " + file + " is not a JSON object: " + e.getMessage(), e);
        }
        List<Host> hosts = new ArrayList<>();
        for (JsonElement host : report.getAsJsonArray("hosts")) {
            hosts.add(new Host(host.getAsJsonObject()));
        }
        JsonElement ungoverned = report.get("ungoverned");
        return new AgentReport(hosts, ungoverned == null || ungoverned.isJsonNull() ? null : ungoverned.getAsString());
    }

    public List<Host> hosts() {
        return hosts;
    }

    /** The line on HTTP clients the agent does not govern; null when there was none. */
    public String ungoverned() {
        return ungoverned;
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
        private final JsonObject fields;

        Host(JsonObject fields) {
            this.name = fields.get("host").getAsString();
            this.fields = fields;
        }

        /** A number; NaN when the field is null. */
        public double number(String field) {
            JsonElement value = field(field);
            return value.isJsonNull() ? Double.NaN : value.getAsDouble();
        }

        /** A string, or null. */
        public String text(String field) {
            JsonElement value = fields.get(field);
            return value == null || value.isJsonNull() ? null : value.getAsString();
        }

        /** The time the host's requests waited, by cause ({@code PACE}, {@code HEADER_AS_HINT}...), most first. */
        public Map<String, Long> waitedMillisByCause() {
            List<Map.Entry<String, JsonElement>> causes = new ArrayList<>(field("waitedMillisByCause").getAsJsonObject().entrySet());
            causes.sort((a, b) -> Long.compare(b.getValue().getAsLong(), a.getValue().getAsLong()));
            Map<String, Long> byCause = new LinkedHashMap<>();
            for (Map.Entry<String, JsonElement> cause : causes) {
                byCause.put(cause.getKey(), cause.getValue().getAsLong());
            }
            return byCause;
        }

        private JsonElement field(String field) {
            JsonElement value = fields.get(field);
            if (value == null) {
                throw new IllegalArgumentException("no field " + field + " for " + name + " in " + fields);
            }
            return value;
        }

        @Override
        public String toString() {
            return fields.toString();
        }
    }
}
