package dev.retryafter.it.bench;

import dev.retryafter.it.harness.BenchmarkMain;

import java.io.IOException;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Benchmark 4, learning any limiter: the real engine with the built-in defaults and no policy,
 * against portals whose limiters come in every common shape ({@link LimiterShape}), on one and four
 * workers and several seeds, in virtual time; the seed guide's rule and the AWS SDK's adaptive
 * retry beside it. Prints a Markdown table, writes it to a file, and exits non-zero when the agent
 * misses a target in any cell.
 *
 * <p>Arguments: {@code --smoke} for the quick run; {@code --out=PATH}, or the system property
 * {@value #OUTPUT_PROPERTY}; default {@value #DEFAULT_OUTPUT}.
 */
public final class LimiterBenchmark {

    static final String OUTPUT_PROPERTY = "limiter.out";
    static final String DEFAULT_OUTPUT = "benchmark-results/limiter.md";
    static final long LATENCY_MILLIS = 50;
    /** The agent's default min-sleep: no worker sends again sooner after a refusal. */
    static final long FLOOR_MILLIS = 1_000;
    /** The agent's default max-sleep: a hold is probed at most once per this. */
    static final long MAX_SLEEP_MILLIS = 300_000;

    static final List<Contender> CONTENDERS = List.of(
            new Contender("seed",
                    "the seed guide as written: sanitise() (1 s / 300 s), characterise(), pace 0.8 x the ceiling per 60 s window",
                    SeedGuideStrategy::new),
            new Contender("aws-adaptive",
                    "the AWS SDK v2 adaptive retry mode: a CUBIC client-side token bucket, " + AwsAdaptiveStrategy.MAX_ATTEMPTS
                            + " attempts, full-jitter backoff (1 s floor)",
                    AwsAdaptiveStrategy::new),
            new Contender(Contender.AGENT, "this project's RetryEngine with Policy.DEFAULTS, via Call.turn()/onResponse()",
                    AgentStrategy::new));

    /** What one run covers. */
    record Settings(String mode, int records, List<LimiterShape> shapes, List<Integer> threads, List<Long> seeds) {

        static Settings full() {
            return new Settings("full", 2_000, LimiterShape.all(2_000), List.of(1, 4), List.of(1L, 2L, 3L));
        }

        static Settings smoke() {
            return new Settings("smoke", 2_000, LimiterShape.all(2_000), List.of(1, 4), List.of(1L));
        }
    }

    /** One row: a shape, a number of workers and a strategy, over every seed. */
    record Row(LimiterShape shape, int threads, String strategy, List<LimiterRun.Result> runs) {

        double efficiency() {
            return min(LimiterRun.Result::efficiency);
        }

        double refusedAfterFirstPeriod() {
            return max(LimiterRun.Result::refusedAfterFirstPeriod);
        }

        long lostNotHeld() {
            return maxLong(r -> r.lostNotHeld());
        }

        long held() {
            return maxLong(r -> r.held());
        }

        long longestStall() {
            return maxLong(LimiterRun.Result::longestStallMillis);
        }

        long shortestGap() {
            return runs.stream().mapToLong(LimiterRun.Result::shortestGapAfterRefusalMillis).min().orElse(Long.MAX_VALUE);
        }

        boolean stalled() {
            return runs.stream().anyMatch(LimiterRun.Result::stalled);
        }

        boolean isAgent() {
            return strategy.equals(Contender.AGENT);
        }

        long refusals() {
            return maxLong(LimiterRun.Result::refusals);
        }

        double refusalsPerPeriod() {
            return max(LimiterRun.Result::refusalsPerPeriod);
        }

        long boxEntries() {
            return maxLong(LimiterRun.Result::boxEntries);
        }

        /** The seed whose run answered the most refusals while holding the header truthful. */
        LimiterRun.Result mostAnsweredTruthful() {
            return runs.stream().max(java.util.Comparator.comparingInt(LimiterRun.Result::refusalsAnsweredTruthful)).orElseThrow();
        }

        /**
         * The targets this row misses, in words; empty when it meets them all (only the agent's rows have
         * targets). {@code baseline}: the agent's row on the shape's baseline, for {@link LimiterShape.Targets#NO_WORSE}.
         */
        List<String> misses(Row baseline) {
            List<String> misses = new ArrayList<>();
            if (!isAgent()) {
                return misses;
            }
            switch (shape.targets()) {
                case HINTS:
                    if (efficiency() < 0.98) {
                        misses.add(String.format(Locale.ROOT, "efficiency %.2f < 0.98", efficiency()));
                    }
                    if (refusals() > 0) {
                        misses.add(refusals() + " refusals, where truthful hints allow none");
                    }
                    break;
                case NO_WORSE:
                    if (baseline != null && efficiency() < baseline.efficiency() - 0.02) {
                        misses.add(String.format(Locale.ROOT, "efficiency %.2f < %.2f without hints", efficiency(), baseline.efficiency()));
                    }
                    if (baseline != null && refusedAfterFirstPeriod() > baseline.refusedAfterFirstPeriod() + 0.005) {
                        misses.add(String.format(Locale.ROOT, "refused %.1f%% > %.1f%% without hints", 100 * refusedAfterFirstPeriod(),
                                100 * baseline.refusedAfterFirstPeriod()));
                    }
                    break;
                case QUOTA:
                    // With a date: held after the second refusal a worker sees; the requests other workers had in flight are
                    // refused besides. Without a header: held once refused for max-sleep, then one probe per max-sleep at most.
                    double allowed = threads + 1 + (shape.header() == LimiterShape.Header.NONE ? LimiterShape.DAY / MAX_SLEEP_MILLIS : 0);
                    if (refusalsPerPeriod() > allowed) {
                        misses.add(String.format(Locale.ROOT, "%.1f refusals a day > %.0f", refusalsPerPeriod(), allowed));
                    }
                    break;
                case BOX:
                    if (boxEntries() > 0) {
                        misses.add("the penalty box was entered " + boxEntries() + " times");
                    }
                    break;
                default:
                    learningMisses(misses);
            }
            if (lostNotHeld() > 0 || stalled()) {
                misses.add(stalled() ? "stalled" : lostNotHeld() + " records lost");
            }
            if (shortestGap() < FLOOR_MILLIS) {
                misses.add("a request " + shortestGap() + " ms after a refusal");
            }
            return misses;
        }

        private void learningMisses(List<String> misses) {
            double target = shape.windowTarget() ? 0.95 : 0.9;
            if (efficiency() < target) {
                misses.add(String.format(Locale.ROOT, "efficiency %.2f < %.2f", efficiency(), target));
            }
            if (refusedAfterFirstPeriod() > 0.01) {
                misses.add(String.format(Locale.ROOT, "refused after the first window %.1f%% > 1%%", 100 * refusedAfterFirstPeriod()));
            }
            LimiterRun.Result truthful = mostAnsweredTruthful();
            if (shape.header() == LimiterShape.Header.RANDOM_0_TO_60 && truthful.refusalsAnsweredTruthful() > 0) {
                misses.add(String.format(Locale.ROOT, "a random header held truthful for %d of %d refusals",
                        truthful.refusalsAnsweredTruthful(), truthful.refusals()));
            }
        }

        private double min(ToDoubleFunction<LimiterRun.Result> f) {
            return runs.stream().mapToDouble(f).min().orElse(0);
        }

        private double max(ToDoubleFunction<LimiterRun.Result> f) {
            return runs.stream().mapToDouble(f).max().orElse(0);
        }

        private long maxLong(ToLongFunction<LimiterRun.Result> f) {
            return runs.stream().mapToLong(f).max().orElse(0);
        }
    }

    private LimiterBenchmark() {
    }

    public static void main(String[] args) throws IOException {
        BenchmarkMain main = BenchmarkMain.parse(args, OUTPUT_PROPERTY, DEFAULT_OUTPUT);
        Settings settings = main.smoke ? Settings.smoke() : Settings.full();
        ZonedDateTime startedAt = ZonedDateTime.now();
        long wallStart = System.nanoTime();
        List<Row> rows = run(settings);
        long wallMillis = (System.nanoTime() - wallStart) / 1_000_000;
        main.publish(markdown(settings, rows, startedAt, wallMillis));
        long missed = rows.stream().filter(r -> !r.misses(baselineOf(r, rows)).isEmpty()).count();
        if (missed > 0) {
            System.out.println("TARGETS MISSED in " + missed + " agent rows");
            System.exit(1);
        }
    }

    /** Every row, in table order: shape, then workers, then strategy. */
    static List<Row> run(Settings settings) {
        List<Row> rows = new ArrayList<>();
        for (LimiterShape shape : settings.shapes()) {
            for (int threads : settings.threads()) {
                for (Contender contender : CONTENDERS) {
                    List<LimiterRun.Result> runs = new ArrayList<>();
                    for (long seed : settings.seeds()) {
                        runs.add(LimiterRun.run(shape, threads, settings.records(), LATENCY_MILLIS, seed, contender));
                    }
                    rows.add(new Row(shape, threads, contender.name(), runs));
                }
            }
        }
        return rows;
    }

    /** The agent's row on the shape's baseline with as many workers; null when it has none. */
    static Row baselineOf(Row row, List<Row> rows) {
        String baseline = row.shape().baseline();
        return baseline == null ? null : rows.stream().filter(r -> r.isAgent() && r.threads() == row.threads()
                && r.shape().name().equals(baseline)).findFirst().orElse(null);
    }

    static String markdown(Settings settings, List<Row> rows, ZonedDateTime startedAt, long wallMillis) {
        StringBuilder md = new StringBuilder();
        md.append("# Benchmark 4: learning any limiter (virtual time, the real engine, no policy)\n\n");
        line(md, "- Mode %s: %,d records a cell; workers %s sharing one host; %d ms from client to portal; seeds %s; "
                        + "each figure the worst over the seeds.", settings.mode(), settings.records(), settings.threads(),
                LATENCY_MILLIS, settings.seeds());
        line(md, "- Efficiency: the time the records take at the limit enforced (its rate throughout; for a cap on requests "
                + "in flight, that many at a time), over the time taken, at most 1; a run that lost records counts only those fetched.");
        line(md, "- Refused after the first window: refusals among the requests the portal received after its first window "
                + "(for a bucket, the time to drain its burst; none for a cap on requests in flight).");
        line(md, "- Lost: records given up other than fast by a hold; held: records failed fast by a hold. Stall: the longest "
                + "time between two requests let through. Gap: the shortest time from a refusal to the same worker's next request.");
        line(md, "- Targets for the agent, every cell, as #25 sets them: efficiency >= 0.95 on fixed and rolling windows, >= 0.9 "
                + "elsewhere (buckets, the cap, a drifting limit, a random header); "
                + "refused after the first window <= 1%%; no record lost but by a hold; no gap under %d ms.", FLOOR_MILLIS);
        line(md, "- Run %s, Java %s; %.1f s wall.\n", startedAt.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME),
                System.getProperty("java.version"), wallMillis / 1000.0);
        md.append("## Strategies\n\n");
        for (Contender c : CONTENDERS) {
            line(md, "- **%s**: %s.", c.name(), c.rule());
        }
        md.append("\n## Results\n\n");
        md.append("| limiter | workers | strategy | efficiency | refused after 1st window | lost | held | longest stall (s) "
                + "| shortest gap (s) | targets |\n");
        md.append("|---|--:|---|--:|--:|--:|--:|--:|--:|---|\n");
        for (Row r : rows) {
            List<String> misses = r.misses(baselineOf(r, rows));
            line(md, "| %s | %d | %s | %.2f | %.1f%% | %d%s | %d | %.1f | %s | %s |", r.shape().name(), r.threads(),
                    r.isAgent() ? "**agent**" : r.strategy(), r.efficiency(), 100 * r.refusedAfterFirstPeriod(), r.lostNotHeld(),
                    r.stalled() ? " (stalled)" : "", r.held(), r.longestStall() / 1000.0,
                    r.shortestGap() == Long.MAX_VALUE ? "—" : String.format(Locale.ROOT, "%.2f", r.shortestGap() / 1000.0),
                    !r.isAgent() ? "" : misses.isEmpty() ? "PASS" : "**MISS**: " + String.join("; ", misses));
        }
        md.append("\n## Headers held truthful\n\n");
        md.append("Refusals the agent answered while it held the portal's `Retry-After` truthful, on the seed with the most "
                + "(a random header is to be held truthful for none):\n\n");
        for (Row r : rows) {
            LimiterShape.Header header = r.shape().header();
            if (r.isAgent() && (header == LimiterShape.Header.RANDOM_0_TO_60 || header == LimiterShape.Header.TRUTHFUL)) {
                LimiterRun.Result most = r.mostAnsweredTruthful();
                line(md, "- %s, %d worker%s: %d of %d (seed %d)", r.shape().name(), r.threads(), r.threads() == 1 ? "" : "s",
                        most.refusalsAnsweredTruthful(), most.refusals(), most.seed());
            }
        }
        long agentRows = rows.stream().filter(Row::isAgent).count();
        long passing = rows.stream().filter(r -> r.isAgent() && r.misses(baselineOf(r, rows)).isEmpty()).count();
        line(md, "\nThe agent meets every target in %d of %d cells.", passing, agentRows);
        return md.toString();
    }

    private static void line(StringBuilder md, String format, Object... args) {
        md.append(String.format(Locale.ROOT, format, args)).append('\n');
    }
}
