package dev.retryafter.agent.config;

import dev.retryafter.agent.engine.Policy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads a policy file: {@code key = value} lines, {@code #} or {@code !} comments (also after a
 * value, following white space), a trailing {@code \} to continue a line.
 * <pre>
 * enabled = true
 * report = /var/log/scraper/retry-after.json
 * state-file = /var/lib/scraper/retry-after.state   # what was learned, kept across runs
 * default.max-sleep = 300s                  # any setting, for every host
 * policy.king.hosts = data.kingcounty.gov, 127.0.0.1:8081, *.piercecountywa.gov
 * policy.king.max-concurrency = 2           # any setting, for the hosts of that policy
 * </pre>
 * Every mistake is an error naming the file, the line and the key; nothing is guessed.
 */
public final class PolicyFile {

    static final String ENABLED = "enabled";
    static final String REPORT = "report";
    static final String STATE_FILE = "state-file";
    static final String STATE_INTERVAL = "state-interval";
    static final String STATE_MAX_AGE = "state-max-age";
    private static final String DEFAULT_PREFIX = "default.";
    private static final String POLICY_PREFIX = "policy.";
    private static final String HOSTS = "hosts";

    /** One key = value, and where it was written. */
    static final class Line {
        final String source;
        final int number;
        final String key;
        final String value;

        Line(String source, int number, String key, String value) {
            this.source = source;
            this.number = number;
            this.key = key;
            this.value = value;
        }

        ConfigException error(String message) {
            return new ConfigException(source, number, key, message);
        }
    }

    private PolicyFile() {
    }

    /** Reads {@code file}, then lets {@code overrides} (from the agent argument) replace any of its keys. */
    public static AgentConfig read(Path file, List<Line> overrides) throws ConfigException {
        return read(file, overrides, System.getenv());
    }

    /** The same, with the environment a store password may be read from. */
    static AgentConfig read(Path file, List<Line> overrides, Map<String, String> environment) throws ConfigException {
        List<Line> lines = new ArrayList<>();
        if (file != null) {
            String text;
            try {
                text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new ConfigException(file.toString(), 0, null, "cannot be read: " + e);
            }
            lines.addAll(parse(file.toString(), text));
        }
        return build(lines, overrides, file == null ? "agent argument" : file.toString(), environment);
    }

    static List<Line> parse(String source, String text) throws ConfigException {
        List<Line> lines = new ArrayList<>();
        Map<String, Line> seen = new LinkedHashMap<>();
        String[] physical = text.split("\r\n|\r|\n", -1);
        for (int i = 0; i < physical.length; i++) {
            int number = i + 1;
            StringBuilder logical = new StringBuilder(stripComment(physical[i]));
            while (endsWithContinuation(logical) && i + 1 < physical.length) {
                logical.setLength(logical.length() - 1);
                logical.append(' ').append(stripComment(physical[++i]).trim());
            }
            String content = logical.toString().trim();
            if (content.isEmpty()) {
                continue;
            }
            int separator = separatorIndex(content);
            if (separator < 0) {
                throw new ConfigException(source, number, content, "is not a 'key = value' line");
            }
            String key = content.substring(0, separator).trim();
            String value = content.substring(separator + 1).trim();
            Line line = new Line(source, number, key, value);
            Line earlier = seen.put(key, line);
            if (earlier != null) {
                throw line.error("is set twice; first on line " + earlier.number);
            }
            lines.add(line);
        }
        return lines;
    }

    private static AgentConfig build(List<Line> fileLines, List<Line> overrides, String source,
                                     Map<String, String> environment) throws ConfigException {
        Map<String, Line> byKey = new LinkedHashMap<>();
        for (Line line : fileLines) {
            byKey.put(line.key, line);
        }
        for (Line line : overrides) {
            byKey.put(line.key, line); // an override keeps the file's order for a key the file has
        }

        boolean enabled = true;
        String report = null;
        String stateFile = null;
        long stateInterval = AgentConfig.DEFAULT_STATE_INTERVAL_MILLIS;
        long stateMaxAge = AgentConfig.DEFAULT_STATE_MAX_AGE_MILLIS;
        Policy.Builder defaults = Policy.builder();
        Map<String, Line> defaultLines = new LinkedHashMap<>();
        Map<String, Map<String, Line>> policyLines = new LinkedHashMap<>();
        Map<String, Line> storeLines = new LinkedHashMap<>();
        boolean defaultShared = true;
        for (Line line : byKey.values()) {
            String key = line.key;
            if (key.equals(ENABLED)) {
                enabled = read(line, () -> Values.bool(line.value));
            } else if (key.equals(REPORT)) {
                report = line.value.isEmpty() ? null : line.value;
            } else if (key.equals(STATE_FILE)) {
                stateFile = line.value.isEmpty() ? null : line.value;
            } else if (key.equals(STATE_INTERVAL)) {
                stateInterval = read(line, () -> positiveDuration(line.value));
            } else if (key.equals(STATE_MAX_AGE)) {
                stateMaxAge = read(line, () -> positiveDuration(line.value));
            } else if (StoreSettings.KEYS.contains(key)) {
                storeLines.put(key, line);
            } else if (key.equals(DEFAULT_PREFIX + StoreSettings.SHARE)) {
                defaultShared = StoreSettings.shared(line);
            } else if (key.startsWith(DEFAULT_PREFIX)) {
                Setting setting = settingOrError(line, key.substring(DEFAULT_PREFIX.length()), DEFAULT_PREFIX);
                apply(line, setting, defaults);
                defaultLines.put(setting.key(), line);
            } else if (key.startsWith(POLICY_PREFIX) && key.indexOf('.', POLICY_PREFIX.length()) > POLICY_PREFIX.length()) {
                int dot = key.indexOf('.', POLICY_PREFIX.length());
                String name = key.substring(POLICY_PREFIX.length(), dot);
                String rest = key.substring(dot + 1);
                if (!rest.equals(HOSTS) && !rest.equals(StoreSettings.SHARE)) {
                    settingOrError(line, rest, POLICY_PREFIX + name + ".");
                }
                policyLines.computeIfAbsent(name, n -> new LinkedHashMap<>()).put(rest, line);
            } else {
                throw line.error("unknown key" + suggestion(key));
            }
        }

        Policy defaultPolicy = buildPolicy(defaults, defaultLines, defaultLines, source);
        List<Policies.Entry> entries = new ArrayList<>();
        for (Map.Entry<String, Map<String, Line>> policy : policyLines.entrySet()) {
            String name = policy.getKey();
            Map<String, Line> lines = policy.getValue();
            Line hosts = lines.get(HOSTS);
            if (hosts == null) {
                Line first = lines.values().iterator().next();
                throw new ConfigException(first.source, first.number, POLICY_PREFIX + name + "." + HOSTS,
                        "policy '" + name + "' has no hosts; add " + POLICY_PREFIX + name + ".hosts = host, host:port, *.domain");
            }
            Policy.Builder builder = defaultPolicy.toBuilder().name(name);
            for (Map.Entry<String, Line> setting : lines.entrySet()) {
                if (!setting.getKey().equals(HOSTS) && !setting.getKey().equals(StoreSettings.SHARE)) {
                    apply(setting.getValue(), Setting.named(setting.getKey()), builder);
                }
            }
            boolean shared = lines.containsKey(StoreSettings.SHARE) ? StoreSettings.shared(lines.get(StoreSettings.SHARE)) : defaultShared;
            entries.add(new Policies.Entry(hostPatterns(hosts), buildPolicy(builder, lines, defaultLines, source), shared));
        }
        return new AgentConfig(enabled, report, new Policies(entries, defaultPolicy, defaultShared), source,
                new AgentConfig.StateFile(stateFile, stateInterval, stateMaxAge), StoreSettings.read(storeLines, environment));
    }

    private static Policy buildPolicy(Policy.Builder builder, Map<String, Line> lines, Map<String, Line> defaultLines,
                                      String source) throws ConfigException {
        try {
            return builder.build();
        } catch (Policy.InvalidSetting e) {
            // Name the line that set the offending value, in this policy or in the defaults.
            Line line = lines.containsKey(e.setting()) ? lines.get(e.setting()) : defaultLines.get(e.setting());
            if (line == null && !lines.isEmpty()) {
                line = lines.values().iterator().next();
            }
            String message = e.getMessage().substring(e.setting().length() + 2);
            if (line == null) {
                throw new ConfigException(source, 0, e.setting(), message);
            }
            throw new ConfigException(line.source, line.number, line.key.endsWith(e.setting()) ? line.key : e.setting(), message);
        }
    }

    private static List<HostPattern> hostPatterns(Line line) throws ConfigException {
        List<HostPattern> patterns = new ArrayList<>();
        for (String entry : line.value.split("[,;\\s]+")) {
            if (!entry.isEmpty()) {
                patterns.add(read(line, () -> HostPattern.parse(entry)));
            }
        }
        if (patterns.isEmpty()) {
            throw line.error("names no host");
        }
        return patterns;
    }

    private static Setting settingOrError(Line line, String name, String prefix) throws ConfigException {
        Setting setting = Setting.named(name.toLowerCase(Locale.ROOT));
        if (setting == null || !setting.key().equals(name)) {
            throw line.error("unknown key" + suggestion(line.key));
        }
        return setting;
    }

    private static void apply(Line line, Setting setting, Policy.Builder builder) throws ConfigException {
        read(line, () -> {
            setting.apply(builder, line.value);
            return null;
        });
    }

    private interface Reader<T> {
        T read();
    }

    private static <T> T read(Line line, Reader<T> reader) throws ConfigException {
        try {
            return reader.read();
        } catch (IllegalArgumentException e) {
            throw line.error(e.getMessage());
        }
    }

    /** A duration that is more than zero: an interval or an age of nothing is a mistake. */
    private static long positiveDuration(String text) {
        long millis = Values.durationMillis(text);
        if (millis <= 0) {
            throw new IllegalArgumentException("'" + text + "' must be more than zero");
        }
        return millis;
    }

    /** "; did you mean policy.king.max-concurrency?" when a known key is close. */
    static String suggestion(String key) {
        List<String> known = new ArrayList<>();
        known.add(ENABLED);
        known.add(REPORT);
        known.add(STATE_FILE);
        known.add(STATE_INTERVAL);
        known.add(STATE_MAX_AGE);
        String policyPrefix = DEFAULT_PREFIX;
        if (key.startsWith(POLICY_PREFIX) && key.indexOf('.', POLICY_PREFIX.length()) > 0) {
            policyPrefix = key.substring(0, key.indexOf('.', POLICY_PREFIX.length()) + 1);
            known.add(policyPrefix + HOSTS);
        }
        known.addAll(StoreSettings.KEYS);
        known.add(DEFAULT_PREFIX + StoreSettings.SHARE);
        known.add(policyPrefix + StoreSettings.SHARE);
        for (Setting s : Setting.values()) {
            known.add(DEFAULT_PREFIX + s.key());
            known.add(policyPrefix + s.key());
        }
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : known) {
            int distance = Levenshtein.distance(key.toLowerCase(Locale.ROOT), candidate);
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return bestDistance <= Math.max(3, key.length() / 4) ? "; did you mean " + best + "?" : "";
    }

    private static String stripComment(String line) {
        String trimmed = line.trim();
        if (trimmed.startsWith("#") || trimmed.startsWith("!")) {
            return "";
        }
        for (int i = 1; i < line.length(); i++) {
            if (line.charAt(i) == '#' && Character.isWhitespace(line.charAt(i - 1))) {
                return line.substring(0, i);
            }
        }
        return line;
    }

    private static boolean endsWithContinuation(StringBuilder line) {
        int end = line.length();
        while (end > 0 && Character.isWhitespace(line.charAt(end - 1))) {
            end--;
        }
        line.setLength(end);
        return end > 0 && line.charAt(end - 1) == '\\';
    }

    private static int separatorIndex(String content) {
        int equals = content.indexOf('=');
        int colon = content.indexOf(':');
        if (equals < 0) {
            return colon;
        }
        return colon < 0 ? equals : Math.min(equals, colon);
    }
}
