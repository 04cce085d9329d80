package dev.retryafter.agent.engine;

/** What the engine decided about one refusal, with everything the log line needs to explain it. */
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
    private final int learnedCeiling;
    private final double learnedPace;

    Decision(String host, int status, int attempt, int maxAttempts, RetryAfter header, Wait wait,
             Outcome outcome, Category category, long holdUntilMillis, int learnedCeiling, double learnedPace) {
        this.host = host;
        this.status = status;
        this.attempt = attempt;
        this.maxAttempts = maxAttempts;
        this.header = header;
        this.wait = wait;
        this.outcome = outcome;
        this.category = category;
        this.holdUntilMillis = holdUntilMillis;
        this.learnedCeiling = learnedCeiling;
        this.learnedPace = learnedPace;
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

    /** When a hold ends; only meaningful for {@link Outcome#HOLD}. */
    public long holdUntilMillis() {
        return holdUntilMillis;
    }

    /**
     * When this refusal began a streak, the ceiling it revealed: successes in the window before it,
     * or {@link LearnedLimit#NONE}. Only the first refusal of a streak teaches anything.
     */
    public int learnedCeiling() {
        return learnedCeiling;
    }

    /** When this refusal began a streak, the pace it set in requests per second (0: none); else NaN. */
    public double learnedPace() {
        return learnedPace;
    }

    public boolean isRetry() {
        return outcome == Outcome.RETRY;
    }

    @Override
    public String toString() {
        return DecisionLine.format(this);
    }
}
