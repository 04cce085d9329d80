package dev.retryafter.it.bench;

import java.util.Locale;

/**
 * One cell of the limiter benchmark told as it ran, for finding where its time went: each refusal with the
 * decision on it, each thing the engine learned, and between them how many requests got through in each
 * bucket of time. Virtual time, the agent with the built-in defaults, as the benchmark runs it.
 *
 * <p>{@code java -cp <test classpath> dev.retryafter.it.bench.CellTimeline "fixed 100 / 10 s" [workers] [bucket ms] [seed]}:
 * the first cell whose name starts so; {@code "fixed:LIMIT/SECONDS"} a fixed window as {@link WindowSweep} runs them.
 */
public final class CellTimeline {

    private CellTimeline() {
    }

    public static void main(String[] args) throws Exception {
        String prefix = args[0];
        int workers = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        long bucket = args.length > 2 ? Long.parseLong(args[2]) : 10_000;
        long seed = args.length > 3 ? Long.parseLong(args[3]) : 1;
        Contender agent = LimiterBenchmark.CONTENDERS.stream().filter(c -> c.name().equals(Contender.AGENT)).findFirst().orElseThrow();
        LimiterShape shape = prefix.startsWith("fixed:") ? sweepCell(prefix.substring("fixed:".length()))
                : LimiterShape.all(2_000).stream().filter(s -> s.name().startsWith(prefix)).findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("no cell named " + prefix + "..."));
        StringBuilder trace = new StringBuilder();
        AgentStrategy.trace = trace;
        AgentStrategy.traceLearning = true;
        LimiterRun.Result result;
        try {
            result = LimiterRun.run(shape, workers, 2_000, LimiterBenchmark.LATENCY_MILLIS, seed, agent);
        } finally {
            AgentStrategy.trace = null;
            AgentStrategy.traceLearning = false;
        }
        long start = Long.MIN_VALUE;
        long current = -1;
        int admitted = 0;
        for (String line : trace.toString().split("\n")) {
            int space = line.indexOf(' ');
            long at = Long.parseLong(line.substring(0, space));
            String what = line.substring(space + 1);
            start = start == Long.MIN_VALUE ? at : start;
            if (what.startsWith("wait ")) {
                continue;
            }
            if (what.startsWith("200 ")) {
                long b = (at - start) / bucket;
                if (b != current) {
                    printBucket(current, bucket, admitted);
                    current = b;
                    admitted = 0;
                }
                admitted++;
                continue;
            }
            System.out.printf(Locale.ROOT, "%8.3f s  %s%n", (at - start) / 1000.0, what);
        }
        printBucket(current, bucket, admitted);
        System.out.println(result);
    }

    private static void printBucket(long index, long bucket, int admitted) {
        if (index >= 0) {
            System.out.printf(Locale.ROOT, "           [%d s ...] %d let through%n", index * bucket / 1000, admitted);
        }
    }

    /** "LIMIT/SECONDS": a fixed window of LIMIT per SECONDS answering {@code Retry-After: 0}, as the window sweep runs it. */
    private static LimiterShape sweepCell(String limitPerSeconds) {
        String[] parts = limitPerSeconds.split("/");
        int limit = Integer.parseInt(parts[0].trim());
        long window = (long) (Double.parseDouble(parts[1].trim()) * 1000);
        return LimiterShape.fixed("fixed " + limit + " / " + window / 1000 + " s", limit, window, 429, LimiterShape.Header.ZERO);
    }
}
