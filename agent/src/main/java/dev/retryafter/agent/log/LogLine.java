package dev.retryafter.agent.log;

import java.util.ArrayList;
import java.util.List;

/**
 * One line of the log with its parts named: what happened ({@code event}), the host, the reason (in
 * the names JMX and {@code status} show: {@code PACE}, {@code HEADER_AS_HINT}...) and the figures
 * behind it. The text format writes the message alone, which says all of it in words; the JSON
 * format ({@code log-format = json}) writes every part as a field of its own, for log shippers.
 */
public final class LogLine {

    final String event;
    final String message;
    String host;
    String reason;
    /** Name, value, name, value...: kept in the order given. */
    final List<Object> figures = new ArrayList<>(8);

    private LogLine(String event, String message) {
        this.event = event;
        this.message = message;
    }

    /** {@code event}: a short fixed name for the kind of line ({@code wait}, {@code summary}, {@code refusal}...). */
    public static LogLine of(String event, String message) {
        return new LogLine(event, message);
    }

    public LogLine host(String host) {
        this.host = host;
        return this;
    }

    public LogLine reason(String reason) {
        this.reason = reason;
        return this;
    }

    /** A figure: a number (written as a JSON number) or a word. */
    public LogLine figure(String name, Object value) {
        if (value != null) {
            figures.add(name);
            figures.add(value);
        }
        return this;
    }

    @Override
    public String toString() {
        return message;
    }
}
