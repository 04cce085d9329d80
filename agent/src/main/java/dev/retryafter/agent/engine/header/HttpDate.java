package dev.retryafter.agent.engine.header;

import java.time.LocalDate;

/**
 * The three HTTP-date formats a recipient must accept (RFC 9110 section 5.6.7):
 * <pre>
 *   IMF-fixdate  Sun, 06 Nov 1994 08:49:37 GMT
 *   rfc850-date  Sunday, 06-Nov-94 08:49:37 GMT
 *   asctime-date Sun Nov  6 08:49:37 1994
 * </pre>
 * Names are matched without regard to case; the layout is strict. The day name is checked to be a
 * day name but not checked against the date: a wrong weekday is a typo, not a lie about the wait.
 */
final class HttpDate {

    static final long INVALID = Long.MIN_VALUE;

    private static final String[] DAYS = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
    private static final String[] LONG_DAYS =
            {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};
    private static final String[] MONTHS =
            {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

    private HttpDate() {
    }

    /** Epoch milliseconds of the date in {@code s[from, to)}, or {@link #INVALID}. */
    static long parseEpochMillis(String s, int from, int to, long nowMillis) {
        int length = to - from;
        if (length == 29 && s.charAt(from + 3) == ',') {
            return imfFixdate(s, from);
        }
        if (length == 24 && s.charAt(from + 3) == ' ') {
            return asctime(s, from);
        }
        int comma = s.indexOf(',', from);
        if (comma > from && comma < to && to - comma == 24) {
            return rfc850(s, from, comma, nowMillis);
        }
        return INVALID;
    }

    private static long imfFixdate(String s, int p) {
        if (indexOf(DAYS, s, p, 3) < 0 || !literal(s, p + 3, ", ")
                || s.charAt(p + 7) != ' ' || s.charAt(p + 11) != ' ' || s.charAt(p + 16) != ' '
                || !literalIgnoreCase(s, p + 25, " GMT")) {
            return INVALID;
        }
        return toEpochMillis(number(s, p + 12, 4), indexOf(MONTHS, s, p + 8, 3) + 1, number(s, p + 5, 2), s, p + 17);
    }

    private static long rfc850(String s, int p, int comma, long nowMillis) {
        if (indexOf(LONG_DAYS, s, p, comma - p) < 0) {
            return INVALID;
        }
        int q = comma + 1; // " 06-Nov-94 08:49:37 GMT"
        if (s.charAt(q) != ' ' || s.charAt(q + 3) != '-' || s.charAt(q + 7) != '-' || s.charAt(q + 10) != ' '
                || !literalIgnoreCase(s, q + 19, " GMT")) {
            return INVALID;
        }
        int twoDigitYear = number(s, q + 8, 2);
        if (twoDigitYear < 0) {
            return INVALID;
        }
        // RFC 9110: a two-digit year more than 50 years ahead means the most recent such year in the past.
        int currentYear = LocalDate.ofEpochDay(Math.floorDiv(nowMillis, 86_400_000L)).getYear();
        int year = currentYear - Math.floorMod(currentYear, 100) + twoDigitYear;
        if (year > currentYear + 50) {
            year -= 100;
        }
        return toEpochMillis(year, indexOf(MONTHS, s, q + 4, 3) + 1, number(s, q + 1, 2), s, q + 11);
    }

    private static long asctime(String s, int p) {
        // "Sun Nov  6 08:49:37 1994": the day is two digits, or a space and one digit.
        if (indexOf(DAYS, s, p, 3) < 0 || s.charAt(p + 7) != ' ' || s.charAt(p + 10) != ' '
                || s.charAt(p + 19) != ' ') {
            return INVALID;
        }
        int day = s.charAt(p + 8) == ' ' ? number(s, p + 9, 1) : number(s, p + 8, 2);
        return toEpochMillis(number(s, p + 20, 4), indexOf(MONTHS, s, p + 4, 3) + 1, day, s, p + 11);
    }

    /** Validates every field (no 30 February, no hour 24) and reads "HH:MM:SS" at {@code t}. */
    private static long toEpochMillis(int year, int month, int day, String s, int t) {
        if (s.charAt(t + 2) != ':' || s.charAt(t + 5) != ':') {
            return INVALID;
        }
        int hour = number(s, t, 2);
        int minute = number(s, t + 3, 2);
        int second = number(s, t + 6, 2);
        if (year < 0 || month < 1 || day < 1 || day > lengthOfMonth(year, month)
                || hour < 0 || hour > 23 || minute < 0 || minute > 59
                || second < 0 || second > 60) { // 60: a leap second, which lands on the next minute
            return INVALID;
        }
        long epochDay = LocalDate.of(year, month, day).toEpochDay();
        return ((epochDay * 24 + hour) * 60 + minute) * 60_000L + second * 1000L;
    }

    private static int lengthOfMonth(int year, int month) {
        if (month == 2) {
            boolean leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
            return leap ? 29 : 28;
        }
        return month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31;
    }

    /** The value of {@code digits} ASCII digits at {@code at}, or -1. */
    private static int number(String s, int at, int digits) {
        int value = 0;
        for (int i = at; i < at + digits; i++) {
            char c = s.charAt(i);
            if (!RetryAfterParser.isAsciiDigit(c)) {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    private static int indexOf(String[] names, String s, int at, int length) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].length() == length && s.regionMatches(true, at, names[i], 0, length)) {
                return i;
            }
        }
        return -1;
    }

    private static boolean literal(String s, int at, String expected) {
        return s.startsWith(expected, at);
    }

    private static boolean literalIgnoreCase(String s, int at, String expected) {
        return s.regionMatches(true, at, expected, 0, expected.length());
    }
}
