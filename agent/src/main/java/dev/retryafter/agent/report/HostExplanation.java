package dev.retryafter.agent.report;

import dev.retryafter.agent.engine.Category;
import dev.retryafter.agent.engine.HostSnapshot;
import dev.retryafter.agent.engine.Reason;
import dev.retryafter.agent.engine.WaitsByCause;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Why a host's requests waited, for an operator ({@code java -jar retry-after-agent.jar why PID HOST}): each
 * cause of waiting by the log's name and words, most first, then what the agent holds the host to and what it
 * saw of it. Read from the snapshot the exit report, JMX and {@code status} read, so the figures agree.
 */
public final class HostExplanation {

    private HostExplanation() {
    }

    public static String of(HostSnapshot s, long now) {
        List<String> lines = new ArrayList<>();
        lines.add(s.host + " (policy " + s.policy + "), as of " + Instant.ofEpochMilli(now) + ":");
        waits(s, lines);
        lines.add("  pace: " + (s.pacePerSecond > 0
                ? String.format(Locale.ROOT, "%.1f/min, one request every %.2f s", s.pacePerMinute(), 1 / s.pacePerSecond)
                : "none (requests go as they come, within the cap)"));
        if (s.learnedCeiling().isPresent() && s.windowMillis > 0) {
            int ceiling = s.learnedCeiling().getAsInt();
            lines.add(String.format(Locale.ROOT, "  last reading: %d let through in %.2f s before a refusal (%.1f/min)", ceiling,
                    s.windowMillis / 1000.0, ceiling * 60_000.0 / s.windowMillis));
        }
        lines.add("  in flight: " + s.inFlight + " holding a place (sent, or waiting for their moment to go), of a cap of " + s.maxConcurrency);
        lines.add("  category: " + s.category.label() + (s.medianRatio().isPresent() && s.category != Category.ALWAYS_ZERO
                ? String.format(Locale.ROOT, " (real recovery over the header's wait, median %.3g)", s.medianRatio().getAsDouble()) : "")
                + (s.retryAfterDistrusted == null ? "" : "; never truthful: " + s.retryAfterDistrusted));
        lines.add("  requests: " + s.requests + " sent, " + s.refusals + " refused" + byStatus(s.refusalsByStatus()) + ", " + s.retries
                + " retried, " + s.gaveUp + " given up to the application");
        lines.add("  holds: " + s.holds + ", " + s.heldRequests + " requests failed fast" + (s.holdUntil().isPresent()
                ? String.format(Locale.ROOT, "; held now, until %s (in %.0f s)", Instant.ofEpochMilli(s.holdUntil().getAsLong()),
                        Math.max(0, s.holdUntil().getAsLong() - now) / 1000.0) : "; not held now"));
        if (s.endedWhileWaiting > 0) {
            lines.add("  ended by the application while waiting: " + s.endedWhileWaiting
                    + " (a cancel, an abort, an interrupt, or a timeout shorter than the waits)");
        }
        lines.add("  rate-limit hints: " + s.hints);
        lines.add(s.lastDecision().isPresent()
                ? String.format(Locale.ROOT, "  last refusal, %.1f s ago: ", Math.max(0, now - s.lastDecisionMillis()) / 1000.0) + s.lastDecision().get()
                : "  no refusal yet");
        String observed = ExitReport.observedLine(s.observed);
        if (observed != null) {
            lines.add("  " + observed);
        }
        return String.join("\n", lines);
    }

    /** "waited 41.2 s in all before being sent:" and a line a cause, most first; or that nothing waited. */
    private static void waits(HostSnapshot s, List<String> lines) {
        WaitsByCause waits = s.waitedByCause;
        List<Reason> causes = waits.causes();
        if (causes.isEmpty()) {
            lines.add("  no request waited");
            return;
        }
        causes.sort(new ExitReport.MostFirst(waits));
        lines.add(String.format(Locale.ROOT, "  requests waited %.1f s in all before they were sent (or ended by the application):",
                waits.totalMillis() / 1000.0));
        for (Reason cause : causes) {
            lines.add(String.format(Locale.ROOT, "  %9.1f s  %-32s %s", waits.millis(cause) / 1000.0, cause.name(), words(cause)));
        }
    }

    /** The reason's words; the three that are not a refusal's have few, so they are said at more length here. */
    private static String words(Reason cause) {
        switch (cause) {
            case PACE:
                return "the host's pace: requests spaced just below the rate it was refused at (or the policy's rate)";
            case QUEUE_AT_CAP:
                return "queued for a place: the host's cap of requests in flight was full";
            case RATE_LIMIT_HINTS:
                return "its rate-limit headers said the allowance was used up until their reset";
            default:
                return cause.text();
        }
    }

    /** " (429: 3, 503: 1)"; nothing when no refusal. */
    private static String byStatus(long[][] pairs) {
        List<String> said = new ArrayList<>();
        for (long[] pair : pairs) {
            said.add(pair[0] + ": " + pair[1]);
        }
        return said.isEmpty() ? "" : " (" + String.join(", ", said) + ")";
    }
}
