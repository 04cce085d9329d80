package dev.retryafter.agent;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
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
 * locale providers, about 60 ms before the application's {@code main} on a slow machine.
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
    private final int threshold;
    private volatile TimeZone zone;

    AgentLogger(String name, String level) {
        this.name = name;
        this.threshold = threshold(level);
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

    private void log(int level, String message, Object... arguments) {
        if (level < threshold) {
            return;
        }
        StringBuilder line = new StringBuilder(80 + message.length());
        time(line, System.currentTimeMillis());
        line.append(' ').append(NAMES[level]).append(' ').append(name).append(" - ");
        Throwable thrown = format(line, message, arguments);
        line.append(System.lineSeparator());
        if (thrown != null) {
            StringWriter trace = new StringWriter();
            thrown.printStackTrace(new PrintWriter(trace, true));
            line.append(trace);
        }
        PrintStream err = System.err; // as it is now: the application may have replaced it
        err.print(line);
        err.flush();
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
