package dev.retryafter.agent;

import java.lang.instrument.Instrumentation;

/**
 * The jar's {@code Premain-Class} and {@code Agent-Class}: the one class a JVM loads before anything
 * is known about it. Built for Java 7 (see the pom), so that an older JVM than the agent supports
 * gets one line and runs the application unchanged, where an {@code UnsupportedClassVersionError}
 * in {@code premain} would end the JVM before {@code main}. Nothing thrown from here ever reaches the
 * JVM, for the same reason.
 */
public final class AgentEntry {

    private AgentEntry() {
    }

    public static void premain(String argument, Instrumentation instrumentation) {
        if (supported()) {
            try {
                RetryAfterAgent.premain(argument, instrumentation);
            } catch (Throwable t) {
                off(t);
            }
        }
    }

    public static void agentmain(String argument, Instrumentation instrumentation) {
        if (supported()) {
            try {
                RetryAfterAgent.agentmain(argument, instrumentation);
            } catch (Throwable t) {
                off(t);
            }
        }
    }

    /** Java 8 or later: "1.8" is 8, "9" and later have no "1." prefix. */
    private static boolean supported() {
        String version = System.getProperty("java.specification.version", "");
        boolean old = version.startsWith("1.") && !version.equals("1.8");
        if (old) {
            System.err.println("retry-after-agent needs Java 8 or later; this JVM is Java " + version
                    + ": the agent is off and the application runs unchanged");
        }
        return !old;
    }

    /** Not through the agent's logger: it is the agent's own classes that may not load. */
    private static void off(Throwable t) {
        System.err.println("retry-after-agent could not start (" + t
                + "); the agent is off and the application runs unchanged");
    }
}
