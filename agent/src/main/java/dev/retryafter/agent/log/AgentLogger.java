package dev.retryafter.agent.log;

import com.google.gson.stream.JsonWriter;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.Locale;
import java.util.TimeZone;
import java.util.function.Consumer;

/**
 * The agent's log: one line per event to standard error,
 * {@code 14:03:07.215 WARN retry-after-agent - message}, a throwable's stack trace after it.
 * {@code {}} in a message is replaced by the next argument; a last argument left over that is a
 * throwable is printed as one. The level is {@code info} unless {@value #LEVEL_PROPERTY} says
 * {@code debug}, {@code warn}, {@code error} or {@code off}.
 *
 * <p>Its own rather than a logging library's: nothing the application configures reaches it, and
 * it costs a handful of classes at start-up. slf4j-simple's date format alone loaded the JDK's
 * locale providers, about 60 ms before the application's {@code main} on a slow machine; measured
 * again in docs/logging.md.
 *
 * <p>Where the lines go and how they look is set once the policy file is read ({@link #use}):
 * {@code log-file} appends them to a file instead ({@link LogFile}), {@code log-format = json}
 * writes one JSON object a line, through the Gson the jar carries (relocated with Jedis).
 */
public final class AgentLogger {

    /** The system property that sets the level. */
    public static final String LEVEL_PROPERTY = "retry-after-agent.log-level";

    private static final int DEBUG = 0;
    private static final int INFO = 1;
    private static final int WARN = 2;
    private static final int ERROR = 3;
    private static final int OFF = 4;
    private static final String[] NAMES = {"DEBUG", "INFO", "WARN", "ERROR"};

    private final String name;
    private volatile int threshold;
    private volatile TimeZone zone;
    /** Null: standard error, as it is at each line (the application may replace it). */
    private volatile LogFile file;
    private volatile boolean json;
    /** Set once a write to the file failed: said once on standard error, then the lines go there. */
    private volatile boolean fileFailed;

    AgentLogger(String name, String level) {
        this.name = name;
        this.threshold = threshold(level);
    }

    /**
     * Where the lines go from now on, and how they look: {@code level} null keeps the level (the system
     * property is stronger than the file, and was read at creation); {@code file} null for standard error.
     */
    void use(String level, LogFile file, boolean json) {
        if (level != null) {
            this.threshold = threshold(level);
        }
        this.json = json;
        this.file = file;
        this.fileFailed = false;
    }

    /** The file lines are appended to; null for standard error. */
    LogFile file() {
        return file;
    }

    /** Whether a level name is one this logger knows. */
    static boolean isLevel(String level) {
        String l = level.trim().toLowerCase(Locale.ROOT);
        return l.equals("debug") || l.equals("trace") || l.equals("info") || l.equals("warn") || l.equals("error") || l.equals("off");
    }

    private static int threshold(String level) {
        String l = level == null ? "info" : level.trim().toLowerCase(Locale.ROOT);
        switch (l) {
            case "debug":
            case "trace":
                return DEBUG;
            case "warn":
                return WARN;
            case "error":
                return ERROR;
            case "off":
                return OFF;
            default:
                return INFO;
        }
    }

    /** Its info lines, for classes that take a consumer of lines. Not a lambda: see AgentInstaller. */
    public Consumer<String> infoLines() {
        return new Consumer<String>() {
            @Override
            public void accept(String line) {
                info(line);
            }
        };
    }

    /** Its warnings, for classes that take a consumer of lines. */
    public Consumer<String> warnLines() {
        return new Consumer<String>() {
            @Override
            public void accept(String line) {
                warn(line);
            }
        };
    }

    public boolean isDebugEnabled() {
        return threshold <= DEBUG;
    }

    public void debug(String message, Object... arguments) {
        log(DEBUG, message, arguments);
    }

    public void info(String message, Object... arguments) {
        log(INFO, message, arguments);
    }

    public void warn(String message, Object... arguments) {
        log(WARN, message, arguments);
    }

    public void error(String message, Object... arguments) {
        log(ERROR, message, arguments);
    }

    /** A line with its parts named ({@link LogLine}): in the JSON format each is a field. */
    public void debug(LogLine line) {
        log(DEBUG, line);
    }

    public void info(LogLine line) {
        log(INFO, line);
    }

    public void warn(LogLine line) {
        log(WARN, line);
    }

    private void log(int level, LogLine parts) {
        if (level < threshold) {
            return;
        }
        try {
            if (json) {
                write(jsonLine(level, parts.message, parts, null));
            } else {
                log(level, parts.message);
            }
        } catch (RuntimeException e) {
            // Never into the caller: a line is lost, not a request (a PrintStream of the application's that throws).
            // An Error goes on to the agent's boundary, which falls back to the plain call and says so once.
        }
    }

    private void log(int level, String message, Object... arguments) {
        if (level < threshold) {
            return;
        }
        try {
            writeLine(level, message, arguments);
        } catch (RuntimeException e) {
            // Never into the caller: an argument's toString or the application's standard error may throw.
        }
    }

    private void writeLine(int level, String message, Object... arguments) {
        long now = System.currentTimeMillis();
        if (json) {
            StringBuilder text = new StringBuilder(message.length() + 40);
            Throwable thrown = format(text, message, arguments);
            write(jsonLine(level, text.toString(), null, thrown));
            return;
        }
        StringBuilder line = new StringBuilder(80 + message.length());
        time(line, now);
        line.append(' ').append(NAMES[level]).append(' ').append(name).append(" - ");
        Throwable thrown = format(line, message, arguments);
        line.append(System.lineSeparator());
        if (thrown != null) {
            line.append(trace(thrown));
        }
        write(line.toString());
    }

    private void write(String text) {
        LogFile to = file;
        if (to != null && !fileFailed) {
            try {
                to.write(text);
                return;
            } catch (IOException | RuntimeException e) {
                fileFailed = true;
                stderr(NAMES[WARN] + ' ' + name + " - cannot write the log file " + to.path() + " (" + e
                        + "); the log goes to standard error from here on" + System.lineSeparator());
            }
        }
        stderr(text);
    }

    private static void stderr(String text) {
        PrintStream err = System.err; // as it is now: the application may have replaced it, even with null
        if (err != null) {
            err.print(text);
            err.flush();
        }
    }

    /** One JSON object and a line break: time (UTC, ISO-8601), level, logger, then the line's parts. */
    private String jsonLine(int level, String message, LogLine parts, Throwable thrown) {
        StringWriter out = new StringWriter(160 + message.length());
        try (JsonWriter json = new JsonWriter(out)) {
            json.beginObject();
            json.name("time").value(Instant.ofEpochMilli(System.currentTimeMillis()).toString());
            json.name("level").value(NAMES[level]);
            json.name("logger").value(name);
            if (parts != null) {
                if (parts.event != null) {
                    json.name("event").value(parts.event);
                }
                if (parts.host != null) {
                    json.name("host").value(parts.host);
                }
                if (parts.reason != null) {
                    json.name("reason").value(parts.reason);
                }
                for (int i = 0; i + 1 < parts.figures.size(); i += 2) {
                    json.name((String) parts.figures.get(i));
                    Object value = parts.figures.get(i + 1);
                    if (value instanceof Double || value instanceof Float) {
                        double d = ((Number) value).doubleValue();
                        if (Double.isNaN(d) || Double.isInfinite(d)) {
                            json.nullValue();
                        } else {
                            json.value(Math.round(d * 100) / 100.0);
                        }
                    } else if (value instanceof Number) {
                        json.value(((Number) value).longValue());
                    } else if (value instanceof Boolean) {
                        json.value((Boolean) value);
                    } else {
                        json.value(String.valueOf(value));
                    }
                }
            }
            json.name("message").value(message);
            if (thrown != null) {
                json.name("thrown").value(trace(thrown));
            }
            json.endObject();
        } catch (IOException e) {
            throw new IllegalStateException(e); // a StringWriter does not fail
        }
        return out.append(System.lineSeparator()).toString();
    }

    private static String trace(Throwable thrown) {
        StringWriter trace = new StringWriter();
        thrown.printStackTrace(new PrintWriter(trace, true));
        return trace.toString();
    }

    /** Appends the message with its {@code {}} filled in; returns the throwable left over, if any. */
    static Throwable format(StringBuilder line, String message, Object[] arguments) {
        int used = 0;
        int from = 0;
        int at;
        while (used < arguments.length && (at = message.indexOf("{}", from)) >= 0) {
            line.append(message, from, at).append(arguments[used++]);
            from = at + 2;
        }
        line.append(message, from, message.length());
        Object last = arguments.length > used ? arguments[arguments.length - 1] : null;
        return last instanceof Throwable ? (Throwable) last : null;
    }

    /** HH:mm:ss.SSS in the JVM's time zone, without a date format (whose locale data costs tens of milliseconds to load). */
    private void time(StringBuilder line, long millis) {
        TimeZone z = zone;
        if (z == null) {
            z = TimeZone.getDefault();
            zone = z;
        }
        long local = millis + z.getOffset(millis);
        long ofDay = Math.floorMod(local, 86_400_000L);
        two(line, ofDay / 3_600_000).append(':');
        two(line, ofDay / 60_000 % 60).append(':');
        two(line, ofDay / 1_000 % 60).append('.');
        long ms = ofDay % 1_000;
        line.append(ms < 100 ? (ms < 10 ? "00" : "0") : "").append(ms);
    }

    private static StringBuilder two(StringBuilder line, long value) {
        return line.append(value < 10 ? "0" : "").append(value);
    }
}
