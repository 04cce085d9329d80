package dev.retryafter.agent.config;

import dev.retryafter.agent.engine.Category;
import dev.retryafter.agent.engine.Policy;

import java.util.function.BiConsumer;

/** Every setting a policy can hold, as the policy file spells it, and how its value is read. */
enum Setting {
    MIN_SLEEP("min-sleep", (b, v) -> b.minSleepMillis(Values.durationMillis(v))),
    MAX_SLEEP("max-sleep", (b, v) -> b.maxSleepMillis(Values.durationMillis(v))),
    MAX_ATTEMPTS("max-attempts", (b, v) -> b.maxAttempts(Values.positiveInt(v))),
    MAX_CONCURRENCY("max-concurrency", (b, v) -> b.maxConcurrency(Values.positiveInt(v))),
    BACKOFF_BASE("backoff-base", (b, v) -> b.backoffBaseMillis(Values.durationMillis(v))),
    BACKOFF_CAP("backoff-cap", (b, v) -> b.backoffCapMillis(Values.durationMillis(v))),
    WINDOW("window", (b, v) -> b.windowMillis(Values.durationMillis(v))),
    HEADROOM("headroom", (b, v) -> b.headroom(Values.fraction(v))),
    RETRY_STATUSES("retry-statuses", (b, v) -> b.retryStatuses(Values.statuses(v))),
    BLOCK_STATUSES("block-statuses", (b, v) -> b.blockStatuses(v.trim().equalsIgnoreCase("none") ? new int[0] : Values.statuses(v))),
    CATEGORY("category", (b, v) -> b.pinnedCategory(category(v))),
    RATE("rate", (b, v) -> b.startRatePerSecond(Values.ratePerSecond(v))),
    MODE("mode", (b, v) -> b.mode(Values.mode(v)));

    private final String key;
    private final BiConsumer<Policy.Builder, String> apply;

    Setting(String key, BiConsumer<Policy.Builder, String> apply) {
        this.key = key;
        this.apply = apply;
    }

    String key() {
        return key;
    }

    void apply(Policy.Builder builder, String value) {
        apply.accept(builder, value);
    }

    static Setting named(String key) {
        for (Setting s : values()) {
            if (s.key.equals(key)) {
                return s;
            }
        }
        return null;
    }

    private static Category category(String text) {
        if (text.trim().equalsIgnoreCase("auto")) {
            return null;
        }
        Category category = Category.fromLabel(text);
        if (category == null || category == Category.UNKNOWN) {
            throw new IllegalArgumentException("'" + text + "' is not auto, truthful, always_zero, constant_overstated, unreliable or absent");
        }
        return category;
    }
}
