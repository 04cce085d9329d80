package dev.retryafter.agent.engine.header;

import dev.retryafter.agent.engine.learn.HintBudget;

import java.util.Locale;

/**
 * What one response said of the host's limit beside {@code Retry-After}: how many requests are left
 * ({@code remaining}), when the allowance is whole again ({@code resetMillis}, from the response's
 * moment), and where the portal says so, the limit and its window. A claim like {@code Retry-After}:
 * {@link HintBudget} believes it only while the host's refusals agree with it. Each field is
 * {@link #UNKNOWN} when the response did not say it.
 */
public final class RateLimitHint {

    public static final long UNKNOWN = -1;

    /** The header family it came from, in the log's words: "X-RateLimit-*", "RateLimit", "RateLimit-*". */
    public final String source;
    public final long limit;
    public final long remaining;
    public final long resetMillis;
    public final long windowMillis;
    /** The reset named a moment already past: one of the ways a hint lies ({@code resetMillis} is then 0). */
    public final boolean resetInPast;

    public RateLimitHint(String source, long limit, long remaining, long resetMillis, long windowMillis, boolean resetInPast) {
        this.source = source;
        this.limit = limit;
        this.remaining = remaining;
        this.resetMillis = resetMillis;
        this.windowMillis = windowMillis;
        this.resetInPast = resetInPast;
    }

    /** A hint says enough to pace by: how many are left, and until when. */
    public boolean isComplete() {
        return remaining != UNKNOWN && resetMillis != UNKNOWN;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(source).append(": ");
        s.append(remaining == UNKNOWN ? "?" : Long.toString(remaining)).append(" left");
        if (limit != UNKNOWN) {
            s.append(" of ").append(limit);
        }
        if (windowMillis != UNKNOWN) {
            s.append(String.format(Locale.ROOT, " per %.0fs", windowMillis / 1000.0));
        }
        if (resetInPast) {
            s.append(", whole again at a moment already past");
        } else if (resetMillis != UNKNOWN) {
            s.append(String.format(Locale.ROOT, ", whole again in %.1fs", resetMillis / 1000.0));
        }
        return s.toString();
    }
}
