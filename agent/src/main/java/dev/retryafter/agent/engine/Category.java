package dev.retryafter.agent.engine;

import java.util.Locale;

/** What a host's {@code Retry-After} turns out to mean, judged from how long recovery really took. */
public enum Category {
    /** No refusal has ended yet, so nothing is known: treated as {@link #UNRELIABLE}. */
    UNKNOWN,
    /** The header is close to the real recovery time: honour it, within the floor and the ceiling. */
    TRUTHFUL,
    /** Always 0: honouring it is a hot request loop. Ignore it and back off. */
    ALWAYS_ZERO,
    /** The same large value whatever the real window (3600 for 20 seconds): back off instead. */
    CONSTANT_OVERSTATED,
    /** Values uncorrelated with reality: a hint, so wait the larger of it and the backoff. */
    UNRELIABLE,
    /** Refusals carry no header: back off, and learn the limit. */
    ABSENT;

    /** The name used in logs, reports and policy files: {@code always_zero}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Reads a label, with '-' or '_' between words ({@code always-zero}); null if it names no category. */
    public static Category fromLabel(String text) {
        String normalised = text.trim().replace('-', '_').toUpperCase(Locale.ROOT);
        for (Category category : values()) {
            if (category.name().equals(normalised)) {
                return category;
            }
        }
        return null;
    }
}
