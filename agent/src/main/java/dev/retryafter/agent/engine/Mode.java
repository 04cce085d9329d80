package dev.retryafter.agent.engine;

import java.util.Locale;

/**
 * Whether the agent's decisions take effect. In {@link #OBSERVE} it learns exactly as in
 * {@link #ENFORCE} and says what it would do, but the traffic is the application's alone: no
 * wait, no retry, no pace, no cap, no hold, and the clients' own retries stay theirs.
 */
public enum Mode {
    OBSERVE,
    ENFORCE;

    /** "observe" or "enforce", as the policy file spells it. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The mode a policy file names, or null for anything else. */
    public static Mode fromLabel(String text) {
        for (Mode mode : values()) {
            if (mode.label().equals(text.trim().toLowerCase(Locale.ROOT))) {
                return mode;
            }
        }
        return null;
    }
}
