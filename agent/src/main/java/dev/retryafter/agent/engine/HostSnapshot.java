package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.learn.LearnedLimit;
import dev.retryafter.agent.engine.knowledge.ObservedCounts;

import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/** One host's line in the report: what happened to it, and what the engine learned about it. */
public final class HostSnapshot {

    public final String host;
    public final String policy;
    public final long requests;
    public final long refusals;
    private final long[][] refusalsByStatus;
    public final long retries;
    public final long gaveUp;
    /** All the time requests to this host spent waiting, as measured. */
    public final long waitedMillis;
    /** The longest single wait the engine decided on: after a refusal, or for the pace. */
    public final long longestWaitMillis;
    public final Category category;
    private final double medianRatio;
    private final int learnedCeiling;
    public final long windowMillis;
    /** Requests per second now; 0 when the host is not paced. */
    public final double pacePerSecond;
    public final long holds;
    public final long heldRequests;
    /** Requests the application ended (cancelled, aborted, interrupted) while they waited for their turn. */
    public final long endedWhileWaiting;
    private final long holdUntilMillis;
    /** Requests holding a permit now: sent, or waiting for their moment to go. */
    public final int inFlight;
    /** The cap on {@link #inFlight}: the policy's max-concurrency. */
    public final int maxConcurrency;
    private final Decision lastDecision;
    private final long lastDecisionMillis;
    /** What enforce mode would have done while the host was observed. */
    public final ObservedCounts observed;
    /** The host's rate-limit hints: "none", "believed (…)" with what they said last, or "distrusted: why". */
    public final String hints;
    /** Why the host's {@code Retry-After} is never held truthful, or null: it never contradicted itself. */
    public final String retryAfterDistrusted;
    /**
     * The time requests waited before they were sent, by cause; the queue for a permit
     * ({@link Reason#QUEUE_AT_CAP}) included, which {@link #waitedMillis} leaves out.
     */
    public final WaitsByCause waitedByCause;

    HostSnapshot(String host, String policy, long requests, long refusals, long[][] refusalsByStatus, long retries, long gaveUp,
                 long waitedMillis, long longestWaitMillis, Category category, double medianRatio, int learnedCeiling, long windowMillis,
                 double pacePerSecond, long holds, long heldRequests, long endedWhileWaiting, long holdUntilMillis, int inFlight, int maxConcurrency,
                 Decision lastDecision, long lastDecisionMillis, ObservedCounts observed, String hints, String retryAfterDistrusted,
                 WaitsByCause waitedByCause) {
        this.retryAfterDistrusted = retryAfterDistrusted;
        this.host = host;
        this.policy = policy;
        this.requests = requests;
        this.refusals = refusals;
        this.refusalsByStatus = refusalsByStatus;
        this.retries = retries;
        this.gaveUp = gaveUp;
        this.waitedMillis = waitedMillis;
        this.longestWaitMillis = longestWaitMillis;
        this.category = category;
        this.medianRatio = medianRatio;
        this.learnedCeiling = learnedCeiling;
        this.windowMillis = windowMillis;
        this.pacePerSecond = pacePerSecond;
        this.holds = holds;
        this.heldRequests = heldRequests;
        this.endedWhileWaiting = endedWhileWaiting;
        this.holdUntilMillis = holdUntilMillis;
        this.inFlight = inFlight;
        this.maxConcurrency = maxConcurrency;
        this.lastDecision = lastDecision;
        this.lastDecisionMillis = lastDecisionMillis;
        this.observed = observed;
        this.hints = hints;
        this.waitedByCause = waitedByCause;
    }

    /**
     * {@link #refusals} by status, as {status, count} pairs in order of status; empty when none. A block
     * status's hold ({@link Reason#HOLD_BLOCKED}) is a hold, not a refusal, and is in neither.
     */
    public long[][] refusalsByStatus() {
        return refusalsByStatus;
    }

    /** Recovery over header, median over the recent streaks; empty when no refusal carried a header. */
    public OptionalDouble medianRatio() {
        return Double.isNaN(medianRatio) ? OptionalDouble.empty() : OptionalDouble.of(medianRatio);
    }

    /** Successes in the window before a refusal, last learned; empty if none. */
    public OptionalInt learnedCeiling() {
        return learnedCeiling == LearnedLimit.NONE ? OptionalInt.empty() : OptionalInt.of(learnedCeiling);
    }

    /** When the current hold ends; empty when not held. */
    public OptionalLong holdUntil() {
        return holdUntilMillis == Long.MIN_VALUE ? OptionalLong.empty() : OptionalLong.of(holdUntilMillis);
    }

    /** The decision on the last refusal; empty before the first. */
    public Optional<Decision> lastDecision() {
        return Optional.ofNullable(lastDecision);
    }

    /** When the last decision was taken; meaningful only when there is one. */
    public long lastDecisionMillis() {
        return lastDecisionMillis;
    }

    /** The pace in requests per minute, the unit portals document their limits in. */
    public double pacePerMinute() {
        return pacePerSecond * 60;
    }
}
