package dev.retryafter.it.bench;

import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/** The run as Markdown: what was run and where, one table row per cell, what was learned, the agent's targets. */
record Report(Settings settings, List<CellResult> results, List<AgentTargets.Target> targets, ZonedDateTime startedAt,
              long wallMillis) {

    static final String RESULTS_HEADER = "| behaviour | limit/min | workers | strategy | completion (min) | × ideal "
            + "| efficiency | lost | refusals | refused | refused after 1st window | shortest gap, own (s) "
            + "| shortest gap, any (s) | longest sleep (s) | note |";

    String markdown() {
        StringBuilder md = new StringBuilder();
        header(md);
        strategies(md);
        resultsTable(md);
        learnedTable(md);
        agentTargets(md);
        legend(md);
        return md.toString();
    }

    private void header(StringBuilder md) {
        md.append("# Benchmark 1: ingestion efficiency (virtual time, the real engine)\n\n");
        line(md, "- Mode %s: N = %,d records per cell; workers %s, sharing one host; %d ms latency per attempt; seed %d.",
                settings.mode(), settings.records(), joined(settings.threads()), settings.latencyMillis(), settings.seed());
        line(md, "- Portal: `PortalModel`, fixed %d s windows counted from its first request; the drifting and doubling "
                + "portals change half-way, at N / limit / 2 windows. A fresh portal per cell, same seed.", Scenario.WINDOW_MILLIS / 1000);
        line(md, "- Cap: %d virtual hours per cell; a cell still running then is marked stalled.", settings.capMillis() / 3_600_000);
        line(md, "- Run %s on %s %s, %d processors, Java %s; %.1f s wall for %d cells.\n",
                startedAt.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME), System.getProperty("os.name"),
                System.getProperty("os.arch"), Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
                wallMillis / 1000.0, results.size());
    }

    private static void strategies(StringBuilder md) {
        md.append("## Strategies\n\n");
        for (Contender c : Contender.ALL) {
            line(md, "- **%s**: %s.", c.name(), c.rule());
        }
        md.append('\n');
    }

    private void resultsTable(StringBuilder md) {
        md.append("## Results\n\n").append(RESULTS_HEADER).append('\n');
        md.append("|---|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");
        for (CellResult r : results) {
            line(md, "| %s | %s | %d | %s | %s | %s | %.2f | %d | %d | %s | %s | %s | %s | %.1f | %s |",
                    r.scenario().behaviour().label(), r.scenario().limitLabel(), r.threads(), bold(r, r.strategy()),
                    r.stalled() ? "> " + fixed(r.completionMinutes(), 0) : fixed(r.completionMinutes(), 1),
                    r.stalled() ? "> " + fixed(r.multipleOfIdeal(), 1) : fixed(r.multipleOfIdeal(), 2),
                    r.efficiency(), r.lost(), r.portal().refusals, percent(r.refusalShare()),
                    percent(r.refusalShareAfterFirstWindow()), seconds(r.portal().shortestGapAfterOwnRefusalMillis),
                    r.threads() == 1 ? seconds(r.portal().shortestGapAfterAnyRefusalMillis) : "—",
                    r.longestSleepMillis() / 1000.0, note(r));
        }
        md.append('\n');
    }

    private void learnedTable(StringBuilder md) {
        md.append("## What the learners learned\n\n");
        md.append("| behaviour | limit/min | workers | strategy | category at the end | last ceiling | pace at the end (/min) "
                + "| longest decided wait (s) | longest sleep (s) |\n");
        md.append("|---|--:|--:|---|---|--:|--:|--:|--:|\n");
        for (CellResult r : results) {
            Strategy.Learned learned = r.learned();
            if (learned != null) {
                line(md, "| %s | %s | %d | %s | %s | %s | %s | %.1f | %.1f |", r.scenario().behaviour().label(),
                        r.scenario().limitLabel(), r.threads(), r.strategy(), learned.category(),
                        learned.ceiling() < 0 ? "—" : learned.ceiling(),
                        learned.pacePerMinute() > 0 ? fixed(learned.pacePerMinute(), 1) : "unpaced",
                        learned.longestDecidedWaitMillis() / 1000.0, r.longestSleepMillis() / 1000.0);
            }
        }
        md.append('\n');
    }

    private void agentTargets(StringBuilder md) {
        md.append("## Agent targets\n\n");
        for (AgentTargets.Target t : targets) {
            line(md, "- **%s** %s (%d of %d met)", t.passed() ? "PASS" : "FAIL", t.name(), t.cells() - t.misses().size(), t.cells());
            for (String miss : t.misses()) {
                line(md, "  - %s", miss);
            }
        }
        md.append('\n');
    }

    private static void legend(StringBuilder md) {
        md.append("## Reading the table\n\n");
        md.append("- *completion*: virtual minutes until the last worker finished its last record; *× ideal*: over "
                + "N / real limit (where the limit doubles: half the records at the limit, half at twice it).\n");
        md.append("- *efficiency*: records fetched per minute of the run, over the real limit (its average where it doubles). "
                + "A run that gave records up ends early, so it can read above 1: compare it with *lost*.\n");
        md.append("- *lost*: records the application got as a refusal (given up, or failed fast while the host was held).\n");
        md.append("- *refusals*, *refused*: the portal's own count, and as a share of the requests it received; "
                + "*after 1st window*: the same from its second window on.\n");
        md.append("- *shortest gap*: from a refusal to the next request from the same worker (*own*) or from anyone "
                + "(*any*, shown for one worker only: with eight, other workers' requests already in flight land within "
                + "a latency). It includes the 50 ms latency; — when nothing was refused.\n");
        md.append("- *longest sleep*: the longest a worker went between an answer and its next request: refusal waits, "
                + "pace and queue together, possibly several waits in a row.\n");
        md.append("- *longest decided wait*: the longest single wait the strategy took in one go: after a refusal, or "
                + "(agent, seed) for its pace. The max-sleep target is about this one. With eight workers an agent "
                + "worker can go longer between requests: it had queued for a pace slot when another worker's refusal "
                + "imposed a fresh wait, and every later request obeys the latest refusal.\n");
        md.append("- Better on completion time: finished sooner having fetched as many records; a run that fetched "
                + "fewer stopped by giving the rest up and never wins on time, nor does a stalled one. Better on "
                + "refusals: provoked fewer.\n");
    }

    private static String note(CellResult r) {
        if (r.stalled()) {
            return "stalled: " + r.fetched() + " fetched by the cap";
        }
        if (r.held() > 0) {
            return r.held() + " failed fast while held";
        }
        return "";
    }

    private static String bold(CellResult r, String text) {
        return r.isAgent() ? "**" + text + "**" : text;
    }

    private static String seconds(long millis) {
        return millis < 0 ? "—" : fixed(millis / 1000.0, 2);
    }

    private static String percent(double share) {
        return fixed(100 * share, 1) + "%";
    }

    private static String fixed(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private static String joined(List<Integer> values) {
        return String.join(" and ", values.stream().map(String::valueOf).toList());
    }

    private static void line(StringBuilder md, String pattern, Object... args) {
        md.append(String.format(Locale.ROOT, pattern, args)).append('\n');
    }
}
