package dev.retryafter.agent.config;

import dev.retryafter.agent.engine.Mode;
import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.io.SmallFile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
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
    static final String MODE = "mode";
    static final String RELOAD = "reload";
    static final String CLASS_CACHE = "class-cache";
    static final String METRICS = "metrics";
    private static final String DEFAULT_PREFIX = "default.";
    static final String POLICY_PREFIX = "policy.";
    private static final String HOSTS = "hosts";
    private static final String MIN_SLEEP = "min-sleep";
    private static final String MAX_SLEEP = "max-sleep";
    private static final String BACKOFF_BASE = "backoff-base";
    private static final String BACKOFF_CAP = "backoff-cap";
    /** Settings whose check compares them with another: each upper bound, and the value it must not be below. */
    private static final Map<String, String> LOWER_OF = new HashMap<>();

    static {
        LOWER_OF.put(MAX_SLEEP, MIN_SLEEP);
        LOWER_OF.put(BACKOFF_CAP, BACKOFF_BASE);
    }

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

    /** The most of a policy file that is read: a real one is a few KiB; a path to a log or a device is a mistake. */
    static final int MAX_BYTES = 1 << 20;
    static final String TOO_LARGE = "is larger than " + SmallFile.size(MAX_BYTES)
            + ", more than any policy file; it is not read (is the path right?)";

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
                text = new String(SmallFile.read(file.toFile(), MAX_BYTES), StandardCharsets.UTF_8);
            } catch (SmallFile.TooLarge e) {
                throw new ConfigException(file.toString(), 0, null, TOO_LARGE);
            } catch (IOException e) {
                throw new ConfigException(file.toString(), 0, null, "cannot be read: " + e);
            }
            lines.addAll(parse(file.toString(), text));
        }
        return build(lines, overrides, file == null ? "agent argument" : file.toString(), environment, file);
    }

    static List<Line> parse(String source, String text) throws ConfigException {
        return PolicyLines.parse(source, text);
    }

    private static AgentConfig build(List<Line> fileLines, List<Line> overrides, String source,
                                     Map<String, String> environment, Path file) throws ConfigException {
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
        Mode mode = Mode.ENFORCE;
        long reload = AgentConfig.DEFAULT_RELOAD_MILLIS;
        String classCache = null;
        MetricsAddress metrics = null;
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
            } else if (key.equals(MODE)) {
                mode = read(line, () -> Values.mode(line.value));
            } else if (key.equals(RELOAD)) {
                reload = read(line, () -> Values.reloadMillis(line.value));
            } else if (key.equals(CLASS_CACHE)) {
                classCache = line.value.isEmpty() ? null
                        : line.value.equalsIgnoreCase(AgentConfig.CLASS_CACHE_OFF) ? AgentConfig.CLASS_CACHE_OFF : line.value;
            } else if (key.equals(METRICS)) {
                metrics = metricsAddress(line);
            } else if (key.equals(BadPolicy.KEY)) {
                // Read from the raw text when the file is broken (BadPolicy); here only checked.
                if (!line.value.equalsIgnoreCase(BadPolicy.DEFAULTS) && !line.value.equalsIgnoreCase(BadPolicy.OFF)) {
                    throw new ConfigException(line.source, line.number, key, "'" + line.value + "' is not defaults or off");
                }
            } else if (LogSettings.KEYS.contains(key)) {
                LogSettings.check(line); // read from the settings as written: AgentConfig.log()
            } else if (StoreSettings.KEYS.contains(key)) {
                storeLines.put(key, line);
            } else if (key.equals(DEFAULT_PREFIX + StoreSettings.SHARE)) {
                defaultShared = StoreSettings.shared(line);
            } else if (key.startsWith(DEFAULT_PREFIX)) {
                Setting setting = settingOrError(line, key.substring(DEFAULT_PREFIX.length()), DEFAULT_PREFIX);
                apply(line, setting, defaults);
                defaultLines.put(setting.key(), line);
            } else if (key.startsWith(POLICY_PREFIX)) {
                int dot = key.indexOf('.', POLICY_PREFIX.length());
                if (dot <= POLICY_PREFIX.length()) {
                    throw line.error(dot < 0 ? "names no policy: write " + POLICY_PREFIX + "NAME." + HOSTS + " or " + POLICY_PREFIX + "NAME.SETTING"
                            : "has an empty policy name: write " + POLICY_PREFIX + "NAME." + HOSTS + " or " + POLICY_PREFIX + "NAME.SETTING");
                }
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

        Policy defaultPolicy = buildPolicy(defaults, Policy.DEFAULTS, defaultLines, Collections.<String, Line>emptyMap(), source);
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
            entries.add(new Policies.Entry(hostPatterns(hosts), buildPolicy(builder, defaultPolicy, lines, defaultLines, source), shared));
        }
        return new AgentConfig(enabled, report, new Policies(entries, defaultPolicy, defaultShared), source,
                new AgentConfig.StateFile(stateFile, stateInterval, stateMaxAge), StoreSettings.read(storeLines, environment),
                new AgentConfig.Read(mode, reload, classCache, file, Collections.unmodifiableList(new ArrayList<>(overrides)), settings(byKey),
                origins(byKey), metrics));
    }

    /** Not through {@link #read(Line, Reader)}: no lambda on the way to the first request (see AgentInstaller). */
    private static MetricsAddress metricsAddress(Line line) throws ConfigException {
        try {
            return MetricsAddress.parse(line.value);
        } catch (IllegalArgumentException e) {
            throw line.error(e.getMessage());
        }
    }

    private static Map<String, String> settings(Map<String, Line> byKey) {
        Map<String, String> settings = new LinkedHashMap<>();
        for (Line line : byKey.values()) {
            settings.put(line.key, line.value);
        }
        return Collections.unmodifiableMap(settings);
    }

    /** Where each key was written: "FILE:LINE" for a file's line, "agent argument" for an override. */
    private static Map<String, String> origins(Map<String, Line> byKey) {
        Map<String, String> origins = new LinkedHashMap<>();
        for (Line line : byKey.values()) {
            origins.put(line.key, line.number > 0 ? line.source + ":" + line.number : line.source);
        }
        return Collections.unmodifiableMap(origins);
    }

    /**
     * Builds the policy; an invalid one is reported at the line that set the offending value, in
     * this policy or in the defaults it inherits. Of two settings that contradict each other, the
     * one set last is named: the one that made them inconsistent.
     */
    private static Policy buildPolicy(Policy.Builder builder, Policy inherited, Map<String, Line> lines,
                                      Map<String, Line> defaultLines, String source) throws ConfigException {
        try {
            return builder.build();
        } catch (Policy.InvalidSetting e) {
            String lower = LOWER_OF.get(e.setting());
            if (lower == null) {
                Line line = writtenFor(e.setting(), lines, defaultLines);
                String message = e.getMessage().substring(e.setting().length() + 2);
                throw line == null ? new ConfigException(source, 0, e.setting(), message) : line.error(message);
            }
            String upper = e.setting();
            Line lowerLine = writtenFor(lower, lines, defaultLines);
            Line upperLine = writtenFor(upper, lines, defaultLines);
            if (lowerLine == null && upperLine == null) {
                throw new ConfigException(source, 0, upper, "must not be below " + lower);
            }
            boolean blameLower = upperLine == null || (lowerLine != null && setLater(lowerLine, upperLine, lines));
            if (blameLower) {
                throw lowerLine.error("must not be above " + upper + " (" + describe(upper, upperLine, inherited) + ")");
            }
            throw upperLine.error("must not be below " + lower + " (" + describe(lower, lowerLine, inherited) + ")");
        }
    }

    /** This policy's own line for the setting, else the defaults' line it inherits, else null. */
    private static Line writtenFor(String setting, Map<String, Line> lines, Map<String, Line> defaultLines) {
        Line own = lines.get(setting);
        return own != null ? own : defaultLines.get(setting);
    }

    /** A policy's own line comes after the defaults it inherits; an argument, after the file it overrides. */
    private static boolean setLater(Line a, Line b, Map<String, Line> ownLines) {
        boolean aOwn = ownLines.containsValue(a);
        if (aOwn != ownLines.containsValue(b)) {
            return aOwn;
        }
        boolean aArgument = a.number == 0;
        if (aArgument != (b.number == 0)) {
            return aArgument;
        }
        return a.number > b.number;
    }

    private static String describe(String setting, Line line, Policy inherited) {
        if (line != null) {
            return line.key + " = " + line.value + (line.number > 0 ? ", line " + line.number : ", in the agent argument");
        }
        long millis = setting.equals(MIN_SLEEP) ? inherited.minSleepMillis()
                : setting.equals(MAX_SLEEP) ? inherited.maxSleepMillis()
                : setting.equals(BACKOFF_BASE) ? inherited.backoffBaseMillis()
                : inherited.backoffCapMillis();
        return Values.formatMillis(millis) + ", the built-in default";
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
        known.add(MODE);
        known.add(RELOAD);
        known.add(CLASS_CACHE);
        known.add(METRICS);
        known.add(BadPolicy.KEY);
        known.addAll(LogSettings.KEYS);
        String policyPrefix = DEFAULT_PREFIX;
        if (key.startsWith(POLICY_PREFIX) && key.indexOf('.', POLICY_PREFIX.length()) > POLICY_PREFIX.length()) {
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
            if (distance < bestDistance && !candidate.equals(key)) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return bestDistance <= Math.max(3, key.length() / 4) ? "; did you mean " + best + "?" : "";
    }
}
