package dev.retryafter.agent.report;

import com.google.gson.stream.JsonWriter;
import dev.retryafter.agent.engine.DecisionLine;
import dev.retryafter.agent.engine.HostSnapshot;
import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.knowledge.ObservedCounts;
import dev.retryafter.agent.engine.Reason;
import dev.retryafter.agent.engine.WaitsByCause;

import java.io.IOException;
import java.io.StringWriter;
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
                + (s.endedWhileWaiting > 0 ? ", " + s.endedWhileWaiting + " ended by the application while waiting" : "")
                + (s.lastDecision().isPresent() ? ", last reason " + lastReason(s) : "")
                + waitedFor(s.waitedByCause)
                + (observed == null ? "" : "; " + observed);
    }

    /** "; waited for: PACE 38.0s, HEADER_AS_HINT 3.0s, QUEUE_AT_CAP 1.2s", most first; nothing when nothing waited. */
    static String waitedFor(WaitsByCause waits) {
        List<Reason> causes = waits.causes();
        if (causes.isEmpty()) {
            return "";
        }
        causes.sort(new MostFirst(waits));
        StringBuilder text = new StringBuilder("; waited for: ");
        for (int i = 0; i < causes.size(); i++) {
            text.append(i == 0 ? "" : ", ").append(causes.get(i).name())
                    .append(String.format(Locale.ROOT, " %.1fs", waits.millis(causes.get(i)) / 1000.0));
        }
        return text.toString();
    }

    /** Not a lambda, as {@link #BY_HOST}. */
    static final class MostFirst implements Comparator<Reason> {
        private final WaitsByCause waits;

        MostFirst(WaitsByCause waits) {
            this.waits = waits;
        }

        @Override
        public int compare(Reason a, Reason b) {
            return Long.compare(waits.millis(b), waits.millis(a));
        }
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

    /**
     * The report, written by the Gson the jar carries (relocated with Jedis, as the JSON log lines are):
     * one object, its hosts in an array, every figure a field of the host's but the waits by cause,
     * an object of their own ({@code "waitedMillisByCause": {"PACE": 38000, "HEADER_AS_HINT": 3000}}).
     */
    static String json(List<HostSnapshot> snapshots, long now, String ungoverned) {
        StringWriter out = new StringWriter(256 + 600 * snapshots.size());
        try (JsonWriter json = new JsonWriter(out)) {
            json.setIndent("  ");
            json.beginObject();
            json.name("agent").value("retry-after-agent");
            json.name("writtenAt").value(Instant.ofEpochMilli(now).toString());
            if (ungoverned != null) {
                json.name("ungoverned").value(ungoverned);
            }
            json.name("hosts").beginArray();
            for (HostSnapshot s : snapshots) {
                host(json, s);
            }
            json.endArray();
            json.endObject();
        } catch (IOException e) {
            throw new IllegalStateException("a StringWriter does not fail", e);
        }
        return out.append('\n').toString();
    }

    private static void host(JsonWriter json, HostSnapshot s) throws IOException {
        json.beginObject();
        json.name("host").value(s.host);
        json.name("policy").value(s.policy);
        json.name("requests").value(s.requests);
        json.name("refusals").value(s.refusals);
        json.name("retries").value(s.retries);
        json.name("gaveUp").value(s.gaveUp);
        json.name("sleptMillis").value(s.waitedMillis);
        json.name("longestSleepMillis").value(s.longestWaitMillis);
        byCause(json.name("waitedMillisByCause"), s.waitedByCause);
        json.name("category").value(s.category.label());
        // A figure the host has none of yet is null: value(Number) writes null for null.
        json.name("medianRatio").value(s.medianRatio().isPresent() ? rounded(s.medianRatio().getAsDouble(), 10_000) : null);
        json.name("learnedCeiling").value(s.learnedCeiling().isPresent() ? s.learnedCeiling().getAsInt() : null);
        json.name("windowMillis").value(s.windowMillis);
        json.name("pacePerMinute").value(s.pacePerSecond > 0 ? rounded(s.pacePerMinute(), 100) : null);
        json.name("holds").value(s.holds);
        json.name("heldRequests").value(s.heldRequests);
        json.name("endedWhileWaiting").value(s.endedWhileWaiting);
        json.name("holdUntil").value(s.holdUntil().isPresent() ? Instant.ofEpochMilli(s.holdUntil().getAsLong()).toString() : null);
        json.name("rateLimitHints").value(s.hints);
        json.name("lastReason").value(s.lastDecision().isPresent() ? lastReason(s) : null);
        observed(json, s.observed);
        json.endObject();
    }

    /** What enforce mode would have done while the host was observed, flat as the other figures; all zero when never observed. */
    private static void observed(JsonWriter json, ObservedCounts o) throws IOException {
        json.name("wouldRetry").value(o.retries);
        json.name("wouldRetryWaitMillis").value(o.retryWaitMillis);
        json.name("wouldGiveUp").value(o.gaveUp);
        json.name("wouldDelayRequests").value(o.delayed);
        json.name("wouldDelayMillis").value(o.delayMillis);
        byCause(json.name("wouldDelayMillisByCause"), o.delayByCause);
        json.name("wouldQueueRequests").value(o.queued);
        json.name("wouldFailFast").value(o.failedFast);
        json.name("wouldHold").value(o.holds);
    }

    /** {"PACE": 38000, "HEADER_AS_HINT": 3000}: the causes waited for, by their names; {} when none. */
    private static void byCause(JsonWriter json, WaitsByCause waits) throws IOException {
        json.beginObject();
        for (Reason cause : waits.causes()) {
            json.name(cause.name()).value(waits.millis(cause));
        }
        json.endObject();
    }

    private static double rounded(double value, int scale) {
        return Math.round(value * scale) / (double) scale;
    }
}
