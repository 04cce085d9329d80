package dev.retryafter.it.bench;

import java.util.Locale;

/**
 * The agent on fixed windows of every length from 1 s to 60 s, at three rates each, beside the limiter benchmark's own
 * cells: a rule tuned on the benchmark's 1 s, 2 s and 60 s windows must hold between them too. Efficiency, worst of three
 * seeds, and the share refused after the first window, on one worker and on four; {@code Retry-After: 0}.
 *
 * <p>{@code java -cp <test classpath> dev.retryafter.it.bench.WindowSweep}
 */
public final class WindowSweep {

    private WindowSweep() {
    }

    public static void main(String[] args) {
        Contender agent = LimiterBenchmark.CONTENDERS.stream().filter(c -> c.name().equals(Contender.AGENT)).findFirst().orElseThrow();
        System.out.println("| window | limit | 1 worker | 4 workers |");
        System.out.println("|--:|--:|--:|--:|");
        for (long window : new long[] {1_000, 2_000, 3_000, 5_000, 7_000, 10_000, 15_000, 20_000, 30_000, 45_000, 60_000}) {
            for (double perSecond : new double[] {0.5, 2, 10}) {
                int limit = (int) Math.max(1, perSecond * window / 1000);
                LimiterShape shape = LimiterShape.fixed("fixed " + limit + " / " + window / 1000 + " s", limit, window, 429,
                        LimiterShape.Header.ZERO);
                StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "| %d s | %d |", window / 1000, limit));
                for (int threads : new int[] {1, 4}) {
                    double efficiency = 1;
                    double refused = 0;
                    for (long seed = 1; seed <= 3; seed++) {
                        LimiterRun.Result run = LimiterRun.run(shape, threads, 2_000, LimiterBenchmark.LATENCY_MILLIS, seed, agent);
                        efficiency = Math.min(efficiency, run.efficiency());
                        refused = Math.max(refused, run.refusedAfterFirstPeriod());
                    }
                    row.append(String.format(Locale.ROOT, " %.2f · %.1f%% |", efficiency, 100 * refused));
                }
                System.out.println(row);
            }
        }
    }
}
