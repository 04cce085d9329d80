package dev.retryafter.it.bench;

import dev.retryafter.it.harness.BenchmarkMain;
import java.io.IOException;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * Benchmark 1, ingestion efficiency: the real decision engine and four other ways of answering
 * refusals, each fetching N records from an in-process portal model of every kind of lying
 * {@code Retry-After}, with one worker and with eight, in virtual time. Prints a Markdown table and
 * writes the same to a file.
 *
 * <p>Arguments: {@code --smoke} for the quick run; {@code --out=PATH} for the file, which the system
 * property {@value #OUTPUT_PROPERTY} also sets; default {@value #DEFAULT_OUTPUT} under the current directory.
 */
public final class IngestionBenchmark {

    static final String OUTPUT_PROPERTY = "ingestion.out";
    static final String DEFAULT_OUTPUT = "benchmark-results/ingestion.md";

    private IngestionBenchmark() {
    }

    public static void main(String[] args) throws IOException {
        BenchmarkMain main = BenchmarkMain.parse(args, OUTPUT_PROPERTY, DEFAULT_OUTPUT);
        main.publish(run(main.smoke ? Settings.smoke() : Settings.full()).markdown());
    }

    /** Every cell, in table order: behaviour, then workers, then strategy. */
    static Report run(Settings settings) {
        ZonedDateTime startedAt = ZonedDateTime.now();
        long wallStart = System.nanoTime();
        List<CellResult> results = new ArrayList<>();
        for (Scenario scenario : settings.scenarios()) {
            for (int threads : settings.threads()) {
                for (Contender contender : Contender.ALL) {
                    results.add(CellRun.run(settings, scenario, threads, contender));
                }
            }
        }
        long wallMillis = (System.nanoTime() - wallStart) / 1_000_000;
        return new Report(settings, results, AgentTargets.check(results), startedAt, wallMillis);
    }

}
