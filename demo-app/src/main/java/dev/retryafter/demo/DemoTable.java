package dev.retryafter.demo;

import dev.retryafter.demo.portal.Behaviour;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The demo's table: a row per portal, what it counted without the agent beside what it counted with it. */
final class DemoTable {

    private static final String ROW = "%-20s | %7s %7s %5s %6s %8s %6s | %7s %7s %5s %6s %8s %7s %6s  %-19s %8s%n";

    private DemoTable() {
    }

    static String render(List<DemoRun.Row> rows, DemoOptions options) throws IOException {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-20s | %-47s | %s%n", "", "WITHOUT the agent", "WITH the agent"));
        out.append(String.format(Locale.ROOT, ROW, "portal", "fetched", "refused", "app", "errors", "min gap", "wall",
                "fetched", "refused", "app", "errors", "min gap", "slept", "wall", "category", "pace/min"));
        for (Behaviour behaviour : Behaviour.values()) {
            DemoRun.Row without = find(rows, behaviour, false);
            DemoRun.Row with = find(rows, behaviour, true);
            out.append(String.format(Locale.ROOT, ROW, behaviour.label(),
                    fetched(without), refused(without), appSaw(without), errors(without), gap(without), wall(without),
                    fetched(with), refused(with), appSaw(with), errors(with), gap(with), slept(with), wall(with),
                    with == null ? "" : with.agent.text("category"), pace(with)));
        }
        out.append("\n  fetched: records the scraper got; refused: refusals the portal sent; app: refusals the application\n"
                + "  saw (records lost to the portal); errors: the scraper's own failures, such as a timeout on a loaded\n"
                + "  machine (records lost, but not refused); min gap: the shortest time from a refusal to the same thread's\n"
                + "  next request; slept: the agent's longest single wait; pace: what it learned, in requests per minute.\n\n");
        out.append(waitedFor(rows));
        out.append(verdict(rows, options));
        out.append("  Logs and the agent's reports: ").append(options.workDir.toAbsolutePath()).append('\n');
        return out.toString();
    }

    /** The claims, checked against the portals' own counts; lost records apart from the scraper's own errors. */
    private static String verdict(List<DemoRun.Row> rows, DemoOptions options) throws IOException {
        int refusedWithout = 0;
        int errorsWithout = 0;
        int refusedWith = 0;
        int errorsWith = 0;
        long shortestGap = Long.MAX_VALUE;
        double longestSleep = 0;
        boolean anyWithout = false;
        for (DemoRun.Row row : rows) {
            if (row.withAgent) {
                refusedWith += row.scraper.refused;
                errorsWith += row.scraper.failed;
                if (row.portal.shortestGapAfterOwnRefusalMillis >= 0) {
                    shortestGap = Math.min(shortestGap, row.portal.shortestGapAfterOwnRefusalMillis);
                }
                longestSleep = Math.max(longestSleep, row.agent.number("longestSleepMillis"));
            } else {
                anyWithout = true;
                refusedWithout += row.scraper.refused;
                errorsWithout += row.scraper.failed;
            }
        }
        StringBuilder out = new StringBuilder();
        if (anyWithout) {
            out.append(String.format(Locale.ROOT, "  Without the agent: %s.%n", lost(refusedWithout, errorsWithout)));
        }
        out.append(String.format(Locale.ROOT, "  With the agent: %s; shortest gap after a refusal %s (min-sleep %s); "
                        + "longest sleep %.1fs (max-sleep %s).%n",
                refusedWith + errorsWith == 0 ? "every portal yielded all its records" : lost(refusedWith, errorsWith),
                shortestGap == Long.MAX_VALUE ? "none" : shortestGap + " ms",
                setting(options, "default.min-sleep"), longestSleep / 1000, setting(options, "default.max-sleep")));
        return out.toString();
    }

    /** What each portal's requests waited for with the agent, by cause, from its report: the why behind "slept". */
    private static String waitedFor(List<DemoRun.Row> rows) {
        StringBuilder out = new StringBuilder("  What the requests waited for, with the agent (its report's waitedMillisByCause):\n");
        for (Behaviour behaviour : Behaviour.values()) {
            DemoRun.Row with = find(rows, behaviour, true);
            if (with == null) {
                continue;
            }
            StringBuilder causes = new StringBuilder();
            for (Map.Entry<String, Long> cause : with.agent.waitedMillisByCause().entrySet()) {
                causes.append(causes.length() == 0 ? "" : ", ")
                        .append(String.format(Locale.ROOT, "%s %.1fs", cause.getKey(), cause.getValue() / 1000.0));
            }
            out.append(String.format(Locale.ROOT, "    %-20s %s%n", behaviour.label(), causes.length() == 0 ? "nothing" : causes));
        }
        return out.append('\n').toString();
    }

    private static String lost(int refused, int errors) {
        return String.format(Locale.ROOT, "%d records lost to refusals, %d to the scraper's own errors", refused, errors);
    }

    private static DemoRun.Row find(List<DemoRun.Row> rows, Behaviour behaviour, boolean withAgent) {
        for (DemoRun.Row row : rows) {
            if (row.behaviour == behaviour && row.withAgent == withAgent) {
                return row;
            }
        }
        return null;
    }

    private static String fetched(DemoRun.Row row) {
        return row == null ? "" : row.scraper.fetched + "/" + row.scraper.records;
    }

    private static String refused(DemoRun.Row row) {
        return row == null ? "" : Long.toString(row.portal.refusals);
    }

    private static String appSaw(DemoRun.Row row) {
        return row == null ? "" : Integer.toString(row.scraper.refused);
    }

    private static String errors(DemoRun.Row row) {
        return row == null ? "" : Integer.toString(row.scraper.failed);
    }

    private static String gap(DemoRun.Row row) {
        if (row == null) {
            return "";
        }
        long gap = row.portal.shortestGapAfterOwnRefusalMillis;
        return gap < 0 ? "-" : gap + "ms";
    }

    private static String wall(DemoRun.Row row) {
        return row == null ? "" : String.format(Locale.ROOT, "%.1fs", row.scraper.elapsedMillis / 1000.0);
    }

    private static String slept(DemoRun.Row row) {
        return row == null ? "" : String.format(Locale.ROOT, "%.2fs", row.agent.number("longestSleepMillis") / 1000);
    }

    private static String pace(DemoRun.Row row) {
        double pace = row == null ? Double.NaN : row.agent.number("pacePerMinute");
        return Double.isNaN(pace) ? "-" : String.format(Locale.ROOT, "%.0f", pace);
    }

    /** A default from the policy file, for the verdict line ("?" if the file does not set it). */
    private static String setting(DemoOptions options, String key) throws IOException {
        for (String line : new String(Files.readAllBytes(options.policies), StandardCharsets.UTF_8).split("\n")) {
            String trimmed = line.trim();
            if (trimmed.startsWith(key) && trimmed.substring(key.length()).trim().startsWith("=")) {
                String value = trimmed.substring(trimmed.indexOf('=') + 1);
                int comment = value.indexOf(" #");
                return (comment < 0 ? value : value.substring(0, comment)).trim();
            }
        }
        return "?";
    }
}
