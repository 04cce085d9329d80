package dev.retryafter.it.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
        boolean smoke = false;
        Path output = Path.of(System.getProperty(OUTPUT_PROPERTY, DEFAULT_OUTPUT));
        for (String arg : args) {
            if (arg.equals("--smoke")) {
                smoke = true;
            } else if (arg.startsWith("--out=")) {
                output = Path.of(arg.substring("--out=".length()));
            } else {
                throw new IllegalArgumentException("unknown argument " + arg + "; expected --smoke or --out=PATH");
            }
        }
        String markdown = run(smoke ? Settings.smoke() : Settings.full()).markdown();
        System.out.println(markdown);
        write(output, markdown);
        System.out.println("Written to " + output.toAbsolutePath());
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

    private static void write(Path output, String markdown) throws IOException {
        Path parent = output.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(output, markdown, StandardCharsets.UTF_8);
    }
}
