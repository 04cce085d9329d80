package dev.retryafter.agent.engine;

/**
 * The agent's one vocabulary of why: why a refusal led to the wait it did, and why a request waited
 * before it was sent (the last four, and a refusal's own reason for the time up to the moment it set).
 * The log, the exit report, JMX, {@code status} and the metrics all name a reason by its name.
 */
public enum Reason {
    HEADER_HONOURED("header honoured (truthful)"),
    HEADER_BEYOND_CEILING("truthful header beyond max-sleep: waiting max-sleep; the host is held if it then names the same time again"),
    HEADER_IGNORED_ALWAYS_ZERO("header ignored (always zero): own backoff"),
    HEADER_IGNORED_OVERSTATED("header ignored (constant overstated): twice own backoff"),
    HEADER_AS_HINT("max(header, backoff): header not proven truthful"),
    UNPROVEN_HEADER_BEYOND_CEILING("header beyond max-sleep, not proven truthful: own backoff"),
    NO_HEADER("no header: own backoff"),
    UNUSABLE_HEADER("unusable header: own backoff"),
    HOLD_CONFIRMED("header beyond max-sleep, confirmed by a second refusal naming the same moment: host held until then"),
    HOLD_PERSISTENT("refused for longer than max-sleep with nothing let through: host held, then probed one request at a time"),
    HOLD_WINDOW_NOT_FOUND("a request's last try refused a default window into the host's first streak: host held until the streak is a quota's age"),
    HOLD_BLOCKED("a block status after refusals: host held, then probed one request at a time"),
    HOLD_HINTED("its believed rate-limit hint says none are left until a moment beyond max-sleep: host held until then"),
    // Why a request waited before it was sent, other than a refusal of this JVM's.
    /** The host's pace: one request every so often, just below the rate it was refused at (or the configured rate). */
    PACE("pace"),
    /** The host's max-concurrency requests were in flight: the request queued for a permit, first come first served. */
    QUEUE_AT_CAP("queue at max-concurrency"),
    /** The host's believed rate-limit headers said its allowance was used up until their reset. */
    RATE_LIMIT_HINTS("rate-limit hints: allowance used up"),
    /** A moment set by a refusal whose decision this JVM did not take: another JVM's, in a fleet, or an earlier run's. */
    REFUSAL_WAIT("a refusal's wait");

    private final String text;

    Reason(String text) {
        this.text = text;
    }

    public String text() {
        return text;
    }

    /** Whether a wait for this reason is a refusal's: its sanitised wait, whoever decided it. */
    public boolean isRefusalWait() {
        return this != PACE && this != QUEUE_AT_CAP && this != RATE_LIMIT_HINTS;
    }
}
