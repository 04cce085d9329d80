package dev.retryafter.agent.engine.header;

/**
 * Reads {@code Retry-After} in both forms RFC 9110 allows, delay-seconds and HTTP-date, and refuses
 * everything else. Never throws: a malformed header is {@link RetryAfter.Form#UNUSABLE}, which the
 * engine treats as "no usable header" and answers with its own backoff.
 */
public final class RetryAfterParser {

    /**
     * About 31,700 years. A longer delay is still "a very long wait", never an overflow: saturating
     * here keeps {@code now + wait} far from {@code Long.MAX_VALUE}.
     */
    static final long MAX_SECONDS = 1_000_000_000_000L;

    private RetryAfterParser() {
    }

    public static RetryAfter parse(String raw, long nowMillis) {
        if (raw == null) {
            return RetryAfter.ABSENT;
        }
        int start = valueStart(raw);
        int end = valueEnd(raw, start);
        if (start == end) {
            return unusable(raw);
        }
        if (isAsciiDigit(raw.charAt(start))) {
            return delaySeconds(raw, start, end);
        }
        long when = HttpDate.parseEpochMillis(raw, start, end, nowMillis);
        if (when == HttpDate.INVALID) {
            return unusable(raw);
        }
        // A date in the past parses fine and means "now": one of the ways the header lies.
        return new RetryAfter(raw, RetryAfter.Form.HTTP_DATE, Math.max(0L, when - nowMillis));
    }

    private static RetryAfter delaySeconds(String raw, int start, int end) {
        long seconds = 0;
        for (int i = start; i < end; i++) {
            char c = raw.charAt(i);
            if (!isAsciiDigit(c)) {
                return unusable(raw); // "1.5", "1e9", "0x10", "2, 3", "5 s"
            }
            if (seconds < MAX_SECONDS) {
                seconds = seconds * 10 + (c - '0');
            }
        }
        return new RetryAfter(raw, RetryAfter.Form.DELAY_SECONDS, Math.min(seconds, MAX_SECONDS) * 1000L);
    }

    private static RetryAfter unusable(String raw) {
        return new RetryAfter(raw, RetryAfter.Form.UNUSABLE, 0);
    }

    /**
     * Where a field's value begins: RFC 9110 fields may carry optional white space (SP, HTAB) around
     * the value; nothing else.
     */
    static int valueStart(String raw) {
        int start = 0;
        while (start < raw.length() && isOws(raw.charAt(start))) {
            start++;
        }
        return start;
    }

    /** Where the value that begins at {@code start} ends, its trailing optional white space left out. */
    static int valueEnd(String raw, int start) {
        int end = raw.length();
        while (end > start && isOws(raw.charAt(end - 1))) {
            end--;
        }
        return end;
    }

    private static boolean isOws(char c) {
        return c == ' ' || c == '\t';
    }

    /** Only '0'..'9': Character.isDigit would let in '٣' and other scripts' digits. */
    static boolean isAsciiDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
