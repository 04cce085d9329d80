package dev.retryafter.agent.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * The time a host's requests waited before they were sent, by cause ({@link Reason}: a refusal's
 * reason for the time up to the moment it set, {@link Reason#PACE}, {@link Reason#QUEUE_AT_CAP},
 * {@link Reason#RATE_LIMIT_HINTS}), as the engine counted it. An immutable copy, part of a
 * {@link HostSnapshot}; the counts behind it only grow while the host is tracked.
 */
public final class WaitsByCause {

    public static final WaitsByCause NONE = new WaitsByCause(new long[Reason.values().length]);

    private final long[] millis;

    private WaitsByCause(long[] millis) {
        this.millis = millis;
    }

    /** A copy of counts indexed by {@link Reason#ordinal()}. */
    static WaitsByCause copyOf(long[] byOrdinal) {
        return new WaitsByCause(byOrdinal.clone());
    }

    public long millis(Reason cause) {
        return millis[cause.ordinal()];
    }

    /** The causes any time was waited for, in the vocabulary's order. */
    public List<Reason> causes() {
        List<Reason> causes = new ArrayList<>(2);
        for (Reason cause : Reason.values()) {
            if (millis[cause.ordinal()] > 0) {
                causes.add(cause);
            }
        }
        return causes;
    }

    public long totalMillis() {
        long total = 0;
        for (long m : millis) {
            total += m;
        }
        return total;
    }

    /** The time waited for refusals, whatever their reasons. */
    public long refusalMillis() {
        long total = 0;
        for (Reason cause : Reason.values()) {
            if (cause.isRefusalWait()) {
                total += millis[cause.ordinal()];
            }
        }
        return total;
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        for (Reason cause : causes()) {
            text.append(text.length() == 0 ? "" : ", ").append(cause.name()).append(' ').append(millis(cause)).append("ms");
        }
        return text.length() == 0 ? "none" : text.toString();
    }
}
