package dev.retryafter.it.harness;

import dev.retryafter.demo.AgentReport;
import dev.retryafter.demo.scraper.ScraperResult;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The demo's legacy scraper in a child JVM, with or without the agent, and what it reported. */
public final class ScraperRun {

    public final ChildJvm.Result jvm;
    public final int fetched;
    public final int refused;
    public final int failed;
    public final long elapsedMillis;
    private final String firstFailure;
    private final Path report;

    private ScraperRun(ChildJvm.Result jvm, Path report) {
        this.jvm = jvm;
        this.report = report;
        ScraperResult result;
        try {
            result = ScraperResult.parse(jvm.stdout);
        } catch (IllegalArgumentException e) {
            throw new AssertionError(e.getMessage() + "\n" + jvm, e);
        }
        fetched = result.fetched;
        refused = result.refused;
        failed = result.failed;
        elapsedMillis = result.elapsedMillis;
        firstFailure = result.firstFailure;
    }

    public AgentReport report() throws IOException {
        return AgentReport.read(report);
    }

    /**
     * Runs the scraper. {@code policy} is the policy file's text, or null to run without the agent.
     * The agent writes its JSON report to a file of the run's own.
     */
    public static ScraperRun run(Jdk jdk, String policy, String client, String url, int records, String... more)
            throws IOException, InterruptedException {
        return run(new ChildJvm(jdk), policy, client, url, records, more);
    }

    /** As {@link #run(Jdk, String, String, String, int, String...)}, on a JVM already given environment or flags. */
    public static ScraperRun run(ChildJvm jvm, String policy, String client, String url, int records, String... more)
            throws IOException, InterruptedException {
        Clients.onClasspath(jvm, client);
        return runAsGiven(jvm, policy, client, url, records, more);
    }

    /** As {@link #run(ChildJvm, String, String, String, int, String...)}, on the class path {@code jvm} was given (a fat jar's). */
    public static ScraperRun runAsGiven(ChildJvm jvm, String policy, String client, String url, int records, String... more)
            throws IOException, InterruptedException {
        Path report = Files.createTempFile(ChildJvm.workDir(), "report-", ".json");
        Files.delete(report);
        if (policy != null) {
            Path file = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
            Files.writeString(file, policy);
            jvm.withAgent("config=" + file + ",report=" + report);
        }
        List<String> args = new ArrayList<>(List.of("--client", Clients.scraperArgument(client), "--url", url, "--records", Integer.toString(records)));
        args.addAll(List.of(more));
        return new ScraperRun(jvm.main("dev.retryafter.demo.scraper.LegacyScraper").args(args).run(), report);
    }

    /** The first failure the scraper saw, or null. */
    public String firstFailure() {
        return firstFailure;
    }

    @Override
    public String toString() {
        return jvm.toString();
    }
}
