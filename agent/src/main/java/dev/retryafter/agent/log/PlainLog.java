package dev.retryafter.agent.log;

/**
 * One line to standard error in the agent's log format, its time in UTC
 * ({@code 04:05:33.215Z INFO retry-after-agent - ...}), without the logger: for the agent switched
 * off, which should load next to nothing. The local time the other lines show would cost 5 to 10 ms
 * here: the default time zone reads the JDK's zone database. UTC is plain arithmetic, and the Z says which it is.
 */
public final class PlainLog {

    private PlainLog() {
    }

    public static void info(String message) {
        // StringBuilder, not +: the first + of strings would bootstrap invokedynamic (see OffSwitch)
        StringBuilder line = new StringBuilder(120);
        utcTime(line, System.currentTimeMillis());
        System.err.println(line.append(" INFO ").append(AgentLog.NAME).append(" - ").append(message).toString());
    }

    /** HH:mm:ss.SSSZ, in UTC. */
    public static StringBuilder utcTime(StringBuilder line, long millis) {
        long ofDay = millis % 86_400_000L; // the epoch is midnight UTC; no time before it reaches here
        two(line, ofDay / 3_600_000).append(':');
        two(line, ofDay / 60_000 % 60).append(':');
        two(line, ofDay / 1_000 % 60).append('.');
        long ms = ofDay % 1_000;
        return line.append(ms < 100 ? (ms < 10 ? "00" : "0") : "").append(ms).append('Z');
    }

    private static StringBuilder two(StringBuilder line, long value) {
        return line.append(value < 10 ? "0" : "").append(value);
    }
}
