package dev.retryafter.agent.report;

import dev.retryafter.agent.engine.DecisionLine;
import dev.retryafter.agent.engine.HostSnapshot;
import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.ObservedCounts;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** The per-host summary written at exit: to the log, and as JSON when a report path is configured. */
public final class ExitReport {

    /** Not a lambda: the JVM's exit comes this way, and a lambda's first link is slow (see AgentInstaller). */
    private static final Comparator<HostSnapshot> BY_HOST = new Comparator<HostSnapshot>() {
        @Override
        public int compare(HostSnapshot a, HostSnapshot b) {
            return a.host.compareTo(b.host);
        }
    };

    private ExitReport() {
    }

    public static List<HostSnapshot> snapshots(Collection<HostState> hosts, long now) {
        List<HostSnapshot> snapshots = new ArrayList<>();
        for (HostState host : hosts) {
            snapshots.add(host.snapshot(now));
        }
        snapshots.sort(BY_HOST);
        return snapshots;
    }

    /** One line per host, for the log. */
    public static String line(HostSnapshot s) {
        String observed = observedLine(s.observed);
        return String.format(Locale.ROOT,
                "%s: %d requests, %d refusals, %d retries, %d given up, slept %.1fs (longest %.1fs), category %s, "
                        + "learned ceiling %s, pace %s, %d holds, %d requests failed fast%s",
                s.host, s.requests, s.refusals, s.retries, s.gaveUp, s.waitedMillis / 1000.0, s.longestWaitMillis / 1000.0,
                s.category.label(), s.learnedCeiling().isPresent() ? s.learnedCeiling().getAsInt() + " per " + DecisionLine.duration(s.windowMillis) : "none",
                s.pacePerSecond > 0 ? String.format(Locale.ROOT, "%.1f/min", s.pacePerMinute()) : "none", s.holds, s.heldRequests,
                "none".equals(s.hints) ? "" : ", rate-limit hints " + s.hints)
                + (s.lastDecision().isPresent() ? ", last reason " + lastReason(s) : "")
                + (observed == null ? "" : "; " + observed);
    }

    /** The last refusal's reason, named as JMX, status and the log name it ({@code HEADER_AS_HINT}). */
    static String lastReason(HostSnapshot s) {
        return s.lastDecision().get().waitBeforeNextRequest().reason().name();
    }

    /** What enforce mode would have done, for a host that was observed and would have seen it act; null otherwise. */
    static String observedLine(ObservedCounts o) {
        if (!o.any()) {
            return null;
        }
        return String.format(Locale.ROOT,
                "observe mode, enforce would have: retried %d refusals (waiting %.1fs before them), given up on %d, "
                        + "delayed %d requests by %.1fs in total, queued %d for a permit, failed %d fast, begun %d holds",
                o.retries, o.retryWaitMillis / 1000.0, o.gaveUp, o.delayed, o.delayMillis / 1000.0, o.queued, o.failedFast, o.holds);
    }

    /** Writes the JSON report through a temporary file, so a reader never sees half of one. */
    public static void writeJson(String path, List<HostSnapshot> snapshots, long now) throws IOException {
        writeJson(path, snapshots, now, null);
    }

    /** As {@link #writeJson(String, List, long)}, with the line on ungoverned traffic, or null for none. */
    public static void writeJson(String path, List<HostSnapshot> snapshots, long now, String ungoverned) throws IOException {
        Path target = Paths.get(path).toAbsolutePath();
        Path parent = target.getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Path temporary = Files.createTempFile(parent, ".retry-after-report", ".tmp");
        try (Writer out = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8)) {
            out.write(json(snapshots, now, ungoverned));
        }
        try {
            // A report made readable to a log shipper's group (chmod 640) stays so: the temporary file is owner-only.
            Files.setPosixFilePermissions(temporary, Files.getPosixFilePermissions(target));
        } catch (IOException | UnsupportedOperationException e) {
            // no report yet, or no POSIX permissions here: owner-only it is
        }
        Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    static String json(List<HostSnapshot> snapshots, long now) {
        return json(snapshots, now, null);
    }

    static String json(List<HostSnapshot> snapshots, long now, String ungoverned) {
        StringBuilder json = new StringBuilder(256 + 400 * snapshots.size());
        json.append("{\n  \"agent\": \"retry-after-agent\",\n  \"writtenAt\": \"").append(Instant.ofEpochMilli(now)).append("\",\n  ");
        if (ungoverned != null) {
            field(json, "ungoverned", ungoverned, true);
            json.append(",\n  ");
        }
        json.append("\"hosts\": [");
        for (int i = 0; i < snapshots.size(); i++) {
            HostSnapshot s = snapshots.get(i);
            json.append(i == 0 ? "\n" : ",\n").append("    {");
            field(json, "host", s.host, true);
            field(json, "policy", s.policy, false);
            number(json, "requests", s.requests);
            number(json, "refusals", s.refusals);
            number(json, "retries", s.retries);
            number(json, "gaveUp", s.gaveUp);
            number(json, "sleptMillis", s.waitedMillis);
            number(json, "longestSleepMillis", s.longestWaitMillis);
            field(json, "category", s.category.label(), false);
            json.append(", \"medianRatio\": ").append(s.medianRatio().isPresent() ? String.format(Locale.ROOT, "%.4f", s.medianRatio().getAsDouble()) : "null");
            json.append(", \"learnedCeiling\": ").append(s.learnedCeiling().isPresent() ? Integer.toString(s.learnedCeiling().getAsInt()) : "null");
            number(json, "windowMillis", s.windowMillis);
            json.append(", \"pacePerMinute\": ").append(s.pacePerSecond > 0 ? String.format(Locale.ROOT, "%.2f", s.pacePerMinute()) : "null");
            number(json, "holds", s.holds);
            number(json, "heldRequests", s.heldRequests);
            json.append(", \"holdUntil\": ").append(s.holdUntil().isPresent() ? "\"" + Instant.ofEpochMilli(s.holdUntil().getAsLong()) + "\"" : "null");
            field(json, "rateLimitHints", s.hints, false);
            json.append(", \"lastReason\": ").append(s.lastDecision().isPresent() ? "\"" + lastReason(s) + "\"" : "null");
            observed(json, s.observed);
            json.append('}');
        }
        return json.append(snapshots.isEmpty() ? "]\n}\n" : "\n  ]\n}\n").toString();
    }

    /** What enforce mode would have done while the host was observed, flat (one level, as every other field); all zero when never observed. */
    private static void observed(StringBuilder json, ObservedCounts o) {
        number(json, "wouldRetry", o.retries);
        number(json, "wouldRetryWaitMillis", o.retryWaitMillis);
        number(json, "wouldGiveUp", o.gaveUp);
        number(json, "wouldDelayRequests", o.delayed);
        number(json, "wouldDelayMillis", o.delayMillis);
        number(json, "wouldQueueRequests", o.queued);
        number(json, "wouldFailFast", o.failedFast);
        number(json, "wouldHold", o.holds);
    }

    private static void field(StringBuilder json, String name, String value, boolean first) {
        json.append(first ? "" : ", ").append('"').append(name).append("\": \"");
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\' || c < 0x20) {
                json.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                json.append(c);
            }
        }
        json.append('"');
    }

    private static void number(StringBuilder json, String name, long value) {
        json.append(", \"").append(name).append("\": ").append(value);
    }
}
