package dev.retryafter.agent;

import java.util.TimeZone;

/**
 * One line to standard error in the agent's log format ({@code 09:50:18.994 INFO retry-after-agent - ...}),
 * without the logger: for the agent switched off, which should load next to nothing. Starting
 * slf4j-simple costs tens of milliseconds (its configuration, a date format and its locale data).
 */
final class PlainLog {

    private PlainLog() {
    }

    static void info(String message) {
        System.err.println(time(System.currentTimeMillis()) + " INFO " + AgentLog.NAME + " - " + message);
    }

    /** HH:mm:ss.SSS in the default time zone, as the logger prints it. */
    static String time(long epochMillis) {
        long local = epochMillis + TimeZone.getDefault().getOffset(epochMillis);
        long ofDay = Math.floorMod(local, 86_400_000L);
        StringBuilder text = new StringBuilder(12);
        two(text, ofDay / 3_600_000).append(':');
        two(text, ofDay / 60_000 % 60).append(':');
        two(text, ofDay / 1_000 % 60).append('.');
        long millis = ofDay % 1_000;
        return text.append(millis < 100 ? "0" : "").append(millis < 10 ? "0" : "").append(millis).toString();
    }

    private static StringBuilder two(StringBuilder text, long value) {
        return text.append(value < 10 ? "0" : "").append(value);
    }
}
