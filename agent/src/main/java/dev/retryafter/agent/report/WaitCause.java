package dev.retryafter.agent.report;

/**
 * Why a request waited before it was sent, other than a refusal's own decision (whose reason, such
 * as {@code HEADER_AS_HINT}, names a refusal's wait). The names are the ones every line, the JSON
 * log and the docs use; each has its plain words.
 */
public enum WaitCause {
    /** The host's pace: one request every so often, just below the rate it was refused at (or the configured rate). */
    PACE("pace"),
    /** The host's max-concurrency requests were in flight: the request queued for a permit, first come first served. */
    QUEUE_AT_CAP("queue at max-concurrency"),
    /** The host's believed rate-limit headers said its allowance was used up until their reset. */
    RATE_LIMIT_HINTS("rate-limit hints: allowance used up"),
    /** A refusal set a moment before which no request goes to the host; the refusal's reason says why that long. */
    REFUSAL_WAIT("a refusal's wait");

    private final String words;

    WaitCause(String words) {
        this.words = words;
    }

    public String words() {
        return words;
    }
}
