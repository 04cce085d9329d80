package dev.retryafter.agent.report;

import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.Reason;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * One host's waits and refusals since its last summary line, and the kinds of decision already
 * said for it (observe mode says each kind once, then counts). Guarded by this.
 */
final class HostMinute {

    final String key;
    volatile HostState host;
    // Enforce mode: what requests waited, by cause.
    long requestsWaited;
    long waitedMillis;
    long paceMillis;
    long refusalMillis;
    long queueMillis;
    long hintsMillis;
    /** The reason of the last refusal's wait a request waited out, as the engine named it; null: none yet. */
    String refusalCause;
    long refusals;
    long failedFast;
    /** Requests the application ended while they waited (its cancel, abort, interrupt). */
    long endedWhileWaiting;
    // Observe mode: what enforce mode would have done.
    long wouldWaitRequests;
    long wouldWaitMillis;
    long wouldPaceMillis;
    long wouldRefusalMillis;
    long wouldQueue;
    long observedRefusals;
    long wouldRetry;
    long wouldGiveUp;
    long wouldFailFast;
    /** Kinds of decision said at full level for this host; the rest of each kind go to debug. Kept across summaries. */
    private final Set<String> kindsSaid = new HashSet<>();

    HostMinute(String key) {
        this.key = key;
    }

    /** Whether {@code kind} is new for this host (and now said). */
    synchronized boolean firstOfKind(String kind) {
        return kindsSaid.add(kind);
    }

    synchronized boolean anything() {
        return requestsWaited > 0 || refusals > 0 || failedFast > 0 || endedWhileWaiting > 0 || wouldWaitRequests > 0 || wouldQueue > 0
                || observedRefusals > 0 || wouldFailFast > 0;
    }

    synchronized void reset() {
        requestsWaited = waitedMillis = paceMillis = refusalMillis = queueMillis = hintsMillis = refusals = failedFast = endedWhileWaiting = 0;
        wouldWaitRequests = wouldWaitMillis = wouldPaceMillis = wouldRefusalMillis = wouldQueue = 0;
        observedRefusals = wouldRetry = wouldGiveUp = wouldFailFast = 0;
    }

    /** The biggest cause of waiting, by name: the summary's reason. */
    synchronized String mainCause(String refusalReason) {
        long pace = paceMillis + wouldPaceMillis;
        long refusal = refusalMillis + wouldRefusalMillis;
        long most = Math.max(Math.max(pace, refusal), Math.max(queueMillis, hintsMillis));
        if (most == 0) {
            return refusals + observedRefusals > 0 && refusalReason != null ? refusalReason : null;
        }
        if (most == pace) {
            return Reason.PACE.name();
        }
        if (most == refusal) {
            return refusalReason != null ? refusalReason : Reason.REFUSAL_WAIT.name();
        }
        return most == queueMillis ? Reason.QUEUE_AT_CAP.name() : Reason.RATE_LIMIT_HINTS.name();
    }

    static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    }
}
