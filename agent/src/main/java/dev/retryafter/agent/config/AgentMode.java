package dev.retryafter.agent.config;

import java.util.Locale;

/**
 * Whether the agent acts on its decisions ({@code enforce}, the default) or only learns and logs them
 * ({@code observe}), switchable at run time (the Agent MBean's {@code Mode}). For now this only records
 * the value: what observe mode changes is wired to it where observe mode is built.
 */
public enum AgentMode {
    ENFORCE("enforce"),
    OBSERVE("observe");

    private static volatile AgentMode current = ENFORCE;

    private final String label;

    AgentMode(String label) {
        this.label = label;
    }

    public static AgentMode current() {
        return current;
    }

    public static void set(AgentMode mode) {
        if (mode == null) {
            throw new IllegalArgumentException("a mode is enforce or observe");
        }
        current = mode;
    }

    /** "enforce" or "observe", in any case and with spaces around. */
    public static AgentMode parse(String value) {
        String wanted = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        for (AgentMode mode : values()) {
            if (mode.label.equals(wanted)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("mode '" + value + "': expected enforce or observe");
    }

    public String label() {
        return label;
    }
}
