package dev.retryafter.agent.config;

import dev.retryafter.agent.engine.Mode;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the values a policy file holds. Each method throws IllegalArgumentException with a message fit for the user. */
public final class Values {

    private Values() {
    }

    /** Compiled on first use, not when {@link #bool} is all start-up needs to read {@code enabled}. */
    private static final class Formats {
        static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)?");
        static final Pattern RATE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*/\\s*(s|sec|second|m|min|minute|h|hour)");
    }

    /** {@code 250ms}, {@code 1s}, {@code 5m}, {@code 1h}; a bare number is seconds. */
    public static long durationMillis(String text) {
        Matcher m = Formats.DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration; write 250ms, 1s, 5m or 1h (a bare number is seconds)");
        }
        double amount = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        double millis;
        switch (unit) {
            case "ms":
                millis = amount;
                break;
            case "m":
                millis = amount * 60_000;
                break;
            case "h":
                millis = amount * 3_600_000;
                break;
            default:
                millis = amount * 1_000;
        }
        if (millis > Long.MAX_VALUE / 4) {
            throw new IllegalArgumentException("'" + text + "' is too long a duration");
        }
        return Math.round(millis);
    }

    /** A duration as a policy file would spell it: whole seconds as {@code 60s}, anything else in {@code ms}. */
    static String formatMillis(long millis) {
        return millis % 1_000 == 0 ? millis / 1_000 + "s" : millis + "ms";
    }

    /** {@code 40/min}, {@code 2/s}, {@code 100/h}, in requests per second. */
    static double ratePerSecond(String text) {
        Matcher m = Formats.RATE.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a rate; write 40/min, 2/s or 100/h");
        }
        double amount = Double.parseDouble(m.group(1));
        if (amount <= 0) {
            throw new IllegalArgumentException("'" + text + "' is not a positive rate");
        }
        switch (m.group(2).charAt(0)) {
            case 'm':
                return amount / 60;
            case 'h':
                return amount / 3600;
            default:
                return amount;
        }
    }

    static int positiveInt(String text) {
        try {
            int value = Integer.parseInt(text.trim());
            if (value >= 1) {
                return value;
            }
        } catch (NumberFormatException e) {
            // falls through to the message below
        }
        throw new IllegalArgumentException("'" + text + "' is not a whole number of at least 1");
    }

    static double fraction(String text) {
        try {
            return Double.parseDouble(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a number such as 0.8");
        }
    }

    static boolean bool(String text) {
        switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "true":
            case "on":
            case "yes":
            case "1":
                return true;
            case "false":
            case "off":
            case "no":
            case "0":
                return false;
            default:
                throw new IllegalArgumentException("'" + text + "' is not true or false (nor on/off, yes/no, 1/0)");
        }
    }

    static int[] statuses(String text) {
        String[] parts = text.split("[,;\\s]+");
        int[] statuses = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                statuses[i] = Integer.parseInt(parts[i]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + parts[i] + "' is not an HTTP status");
            }
        }
        return statuses;
    }

    /** {@code observe} or {@code enforce}. */
    static Mode mode(String text) {
        Mode mode = Mode.fromLabel(text);
        if (mode == null) {
            throw new IllegalArgumentException("'" + text + "' is not observe or enforce");
        }
        return mode;
    }

    /** {@code off}, or how often to look: a duration of at least 100 ms. */
    static long reloadMillis(String text) {
        if (text.trim().equalsIgnoreCase("off")) {
            return 0;
        }
        long millis = durationMillis(text);
        if (millis < 100) {
            throw new IllegalArgumentException("'" + text + "' must be off or at least 100ms");
        }
        return millis;
    }
}
