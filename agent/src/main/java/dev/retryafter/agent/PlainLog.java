package dev.retryafter.agent;

/**
 * One line to standard error in the agent's log format, less the time of day
 * ({@code INFO retry-after-agent - ...}), without the logger: for the agent switched off, which
 * should load next to nothing. The local time costs tens of milliseconds: the default time zone
 * reads the JDK's zone database. The line comes as the JVM starts, so the time it would show is the start's.
 */
final class PlainLog {

    private PlainLog() {
    }

    static void info(String message) {
        // StringBuilder, not +: the first + of strings would bootstrap invokedynamic (see OffSwitch)
        System.err.println(new StringBuilder("INFO ").append(AgentLog.NAME).append(" - ").append(message).toString());
    }
}
