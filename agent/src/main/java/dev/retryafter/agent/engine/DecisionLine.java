package dev.retryafter.agent.engine;

import java.time.Instant;
import java.util.Locale;

/**
 * The one line that explains a decision. It names the host and port only: a URL's query string is
 * never logged, because portals put API keys there.
 * <pre>
 * 127.0.0.1:8081 429 attempt 1/5 Retry-After="0" -&gt; retry in 1.000s: header ignored (always zero): own backoff, raised to min-sleep [always_zero]
 * </pre>
 */
public final class DecisionLine {

    /** A header longer than this is cut: it is evidence, not a payload to copy into logs. */
    static final int MAX_HEADER_CHARS = 64;

    private DecisionLine() {
    }

    public static String format(Decision d) {
        StringBuilder line = new StringBuilder(160)
                .append(d.host()).append(' ').append(d.status())
                .append(" attempt ").append(d.attempt()).append('/').append(d.maxAttempts())
                .append(" Retry-After=").append(quoted(d.header().raw()))
                .append(" -> ");
        if (d.mode() == Mode.OBSERVE) {
            line.append("would ");
        }
        String waited = seconds(d.waitBeforeNextRequest().millis());
        switch (d.outcome()) {
            case RETRY:
                line.append("retry in ").append(waited);
                break;
            case GIVE_UP:
                line.append("give up after ").append(d.attempt()).append(" attempts, host waits ").append(waited);
                break;
            case NOT_REPLAYABLE:
                line.append(d.mode() == Mode.OBSERVE ? "return it" : "returned").append(", the request body cannot be sent twice; host waits ").append(waited);
                break;
            case HOLD:
                line.append("hold host until ").append(Instant.ofEpochMilli(d.holdUntil().getAsLong()));
                break;
            default:
                throw new AssertionError(d.outcome());
        }
        line.append(": ").append(d.waitBeforeNextRequest().explanation()).append(" [").append(d.category().label()).append(']');
        return d.mode() == Mode.OBSERVE ? line.append(" (observe mode: not done)").toString() : line.toString();
    }

    /** The raw header in quotes, control characters escaped, cut to {@link #MAX_HEADER_CHARS}; "none" if absent. */
    static String quoted(String raw) {
        if (raw == null) {
            return "none";
        }
        StringBuilder out = new StringBuilder(raw.length() + 2).append('"');
        int shown = Math.min(raw.length(), MAX_HEADER_CHARS);
        for (int i = 0; i < shown; i++) {
            char c = raw.charAt(i);
            if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '"' || c == '\\') { // C0, DEL and C1: no terminal escapes
                out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        if (raw.length() > MAX_HEADER_CHARS) {
            out.append("...(").append(raw.length()).append(" chars)");
        }
        return out.append('"').toString();
    }

    static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.3fs", millis / 1000.0);
    }

    /** A policy duration as a person writes it: {@code 500ms}, {@code 60s}, {@code 5m}, {@code 1h}. */
    public static String duration(long millis) {
        if (millis % 3_600_000 == 0 && millis > 0) {
            return millis / 3_600_000 + "h";
        }
        if (millis % 60_000 == 0 && millis >= 300_000) {
            return millis / 60_000 + "m";
        }
        if (millis % 1000 == 0 && millis > 0) {
            return millis / 1000 + "s";
        }
        return millis + "ms";
    }
}
