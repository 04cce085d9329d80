package dev.retryafter.agent.config;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code log-file}, {@code log-format} and {@code log-level}: where the agent's log goes, how its
 * lines look, and how much of it there is. Read at start; a change takes a restart.
 */
public final class LogSettings {

    static final String FILE = "log-file";
    static final String FORMAT = "log-format";
    static final String LEVEL = "log-level";
    static final List<String> KEYS = Collections.unmodifiableList(Arrays.asList(FILE, FORMAT, LEVEL));

    private static final List<String> LEVELS = Arrays.asList("debug", "info", "warn", "error", "off");

    static final LogSettings DEFAULTS = new LogSettings(null, false, null);

    private final String file;
    private final boolean json;
    private final String level;

    private LogSettings(String file, boolean json, String level) {
        this.file = file;
        this.json = json;
        this.level = level;
    }

    /** From the keys as written, each checked already ({@link #check}). */
    static LogSettings read(Map<String, String> settings) {
        String file = settings.get(FILE);
        String format = settings.get(FORMAT);
        String level = settings.get(LEVEL);
        if (file == null && format == null && level == null) {
            return DEFAULTS;
        }
        return new LogSettings(file == null || file.isEmpty() ? null : file,
                format != null && format.trim().equalsIgnoreCase("json"),
                level == null || level.isEmpty() ? null : level.trim().toLowerCase(Locale.ROOT));
    }

    /** Throws naming the line when its value is not one the key takes. */
    static void check(PolicyFile.Line line) throws ConfigException {
        String value = line.value.trim().toLowerCase(Locale.ROOT);
        if (line.key.equals(FORMAT) && !value.equals("text") && !value.equals("json")) {
            throw line.error("'" + line.value + "' is not text or json");
        }
        if (line.key.equals(LEVEL) && !value.isEmpty() && !LEVELS.contains(value)) {
            throw line.error("'" + line.value + "' is not debug, info, warn, error or off");
        }
    }

    /** The file the log is appended to; null for standard error. */
    public String file() {
        return file;
    }

    /** Whether each line is one JSON object ({@code log-format = json}) rather than text. */
    public boolean json() {
        return json;
    }

    /** The level the file names; null when it names none (info, unless the system property says otherwise). */
    public String level() {
        return level;
    }
}
