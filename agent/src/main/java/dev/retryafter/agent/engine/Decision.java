package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.knowledge.Learned;

import dev.retryafter.agent.engine.header.RetryAfter;

import java.util.OptionalLong;

/**
 * What the engine decided about one refusal, with everything the log line needs to explain it. What
 * a refusal taught (a ceiling, a pace) is not part of it: that goes to the listener as {@link Learned}.
 */
public final class Decision {

    public enum Outcome {
        /** Wait, then send the request again. */
        RETRY,
        /** Attempts used up: the refusal goes back to the caller unchanged. */
        GIVE_UP,
        /** The request body cannot be sent twice: the refusal goes back to the caller. */
        NOT_REPLAYABLE,
        /** A confirmed wait beyond max-sleep: the refusal goes back now, and the host is held. */
        HOLD
    }

    private final String host;
    private final int status;
    private final int attempt;
    private final int maxAttempts;
    private final RetryAfter header;
    private final Wait wait;
    private final Outcome outcome;
    private final Category category;
    private final long holdUntilMillis;
    private final Mode mode;

    public Decision(String host, int status, int attempt, int maxAttempts, RetryAfter header, Wait wait,
             Outcome outcome, Category category, long holdUntilMillis) {
        this(host, status, attempt, maxAttempts, header, wait, outcome, category, holdUntilMillis, Mode.ENFORCE);
    }

    private Decision(String host, int status, int attempt, int maxAttempts, RetryAfter header, Wait wait,
                     Outcome outcome, Category category, long holdUntilMillis, Mode mode) {
        this.host = host;
        this.status = status;
        this.attempt = attempt;
        this.maxAttempts = maxAttempts;
        this.header = header;
        this.wait = wait;
        this.outcome = outcome;
        this.category = category;
        this.holdUntilMillis = holdUntilMillis;
        this.mode = mode;
    }

    /** The same decision, taken in {@code mode}. */
    Decision in(Mode mode) {
        return mode == this.mode ? this
                : new Decision(host, status, attempt, maxAttempts, header, wait, outcome, category, holdUntilMillis, mode);
    }

    public String host() {
        return host;
    }

    public int status() {
        return status;
    }

    public int attempt() {
        return attempt;
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    public RetryAfter header() {
        return header;
    }

    /** The sanitised wait. Every later request to the host waits at least this long, whoever sends it. */
    public Wait waitBeforeNextRequest() {
        return wait;
    }

    public Outcome outcome() {
        return outcome;
    }

    /** The category the decision was made under. */
    public Category category() {
        return category;
    }

    /** When the hold ends, for {@link Outcome#HOLD}; empty for every other outcome. */
    public OptionalLong holdUntil() {
        return outcome == Outcome.HOLD ? OptionalLong.of(holdUntilMillis) : OptionalLong.empty();
    }

    public boolean isRetry() {
        return outcome == Outcome.RETRY;
    }

    /** The mode it was taken in: in {@link Mode#OBSERVE} nothing of it was done, only said. */
    public Mode mode() {
        return mode;
    }

    /** Whether the refusal is discarded and the request sent again: a retry, enforced. */
    public boolean retriesNow() {
        return isRetry() && mode == Mode.ENFORCE;
    }

    @Override
    public String toString() {
        return DecisionLine.format(this);
    }
}
