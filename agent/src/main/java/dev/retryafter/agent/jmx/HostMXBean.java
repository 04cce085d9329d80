package dev.retryafter.agent.jmx;

import java.util.Map;

/**
 * One tracked host, {@code dev.retryafter:type=Host,name="host:port"}. Open types only, so jconsole,
 * VisualVM and the Prometheus JMX exporter read it without the agent's classes. A figure with nothing
 * to show yet says so plainly: NaN, -1, an empty string.
 */
public interface HostMXBean {

    /** "host:port". */
    String getHost();

    /** The policy the host falls under. */
    String getPolicy();

    /** truthful, always_zero, constant_overstated, no_header, unknown. */
    String getCategory();

    /** The host's rate-limit hints: none, believed (with what they said last), or distrusted and why. */
    String getRateLimitHints();

    /** Recovery over header, median of the recent streaks; NaN before a refusal with a header. */
    double getMedianRatio();

    /** Successes in the window before the last refusal that taught one; -1 when none was learned. */
    int getLearnedCeiling();

    long getWindowMillis();

    /** The pace now, requests per minute; 0 when the host is not paced. */
    double getPacePerMinute();

    /** Requests holding a permit now: sent, or waiting for their moment. */
    int getInFlight();

    /** The cap on in-flight requests (max-concurrency). */
    int getMaxConcurrency();

    long getRequests();

    long getRefusals();

    long getRetries();

    long getGivenUp();

    /** All the time requests to this host spent waiting. */
    long getWaitedMillis();

    long getLongestWaitMillis();

    /**
     * The time requests to this host waited before they were sent, by cause, in milliseconds: a
     * refusal's reason (HEADER_AS_HINT...), PACE, QUEUE_AT_CAP, RATE_LIMIT_HINTS, REFUSAL_WAIT. Only
     * the causes waited for.
     */
    Map<String, Long> getWaitedMillisByCause();

    long getHolds();

    /** Requests failed fast because the host was held. */
    long getHeldRequests();

    /** Requests the application ended (cancelled, aborted, interrupted) while they waited for their turn. */
    long getEndedWhileWaiting();

    boolean isHeld();

    /** When the hold ends, ISO-8601; empty when not held. */
    String getHeldUntil();

    /** The decision log line of the last refusal; empty before the first. */
    String getLastDecision();

    /** The last decision's named reason (e.g. HEADER_IGNORED_ALWAYS_ZERO); empty before the first. */
    String getLastReason();

    /** The last decision's outcome: RETRY, GIVE_UP, NOT_REPLAYABLE, HOLD; empty before the first. */
    String getLastOutcome();

    /** When the last decision was taken, ISO-8601; empty before the first. */
    String getLastDecisionAt();
}
