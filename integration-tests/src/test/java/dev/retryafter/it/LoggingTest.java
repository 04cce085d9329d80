package dev.retryafter.it;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Clients;
import dev.retryafter.it.harness.Inconclusive;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.ScraperRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The log as an operator reads it, from real scrapers in child JVMs: every wait explained at debug,
 * a summary per host per interval at info, observe mode's lines bounded, the log file that survives
 * logrotate's rename, and JSON lines a parser reads.
 */
@Execution(ExecutionMode.CONCURRENT)
class LoggingTest {

    /** The summary's interval, through its hidden system property: a second, where operators get a minute. */
    private static final String SUMMARY_EVERY_SECOND = "-Dretry-after-agent.summary-interval-ms=1000";
    private static final Pattern PACE_WAIT = Pattern.compile(" DEBUG retry-after-agent - 127\\.0\\.0\\.1:\\d+ waited \\d+\\.\\d\\d s: "
            + "pace \\d+\\.\\d/min \\[PACE\\]$");

    /** A portal these runs never fill: every request is let through. */
    private static PortalServer roomyPortal() throws Exception {
        return new PortalServer(new PortalModel(Behaviour.TRUTHFUL, 100_000, 60_000));
    }

    /** A blocking client and an asynchronous one: their waits are watched in two ways (ExplainedWaits). */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jdk", "okhttp-async"})
    void aPacedHostsWaitsNameThePaceAndItsSummaryComesEachInterval(String client) throws Exception {
        int records = 16;
        try (PortalServer portal = roomyPortal()) {
            // log-level in the policy file: the key, not only the system property.
            ScraperRun run = ScraperRun.run(new ChildJvm(Jdk.JAVA_17).jvmArg(SUMMARY_EVERY_SECOND),
                    "log-level = debug\ndefault.rate = 240/min\n", client, portal.baseUrl(), records);
            assertEquals(records, run.fetched, run::toString);
            String host = "127.0.0.1:" + portal.port();

            List<String> waits = run.jvm.agentLines().stream().filter(l -> PACE_WAIT.matcher(l).find()).collect(Collectors.toList());
            assertTrue(waits.size() >= records / 2, () -> "most requests waited for the pace, each said with its rate\n" + run);
            assertTrue(waits.get(0).contains(host + " waited "), waits.get(0));

            List<String> summaries = run.jvm.agentLines().stream()
                    .filter(l -> l.contains(" INFO retry-after-agent - " + host + ": paced at ") && l.contains(" requests waited ")
                            && l.contains(" in all (pace "))
                    .collect(Collectors.toList());
            assertFalse(summaries.isEmpty(), () -> "a summary each second the host was paced\n" + run);
            assertTrue(summaries.size() <= run.elapsedMillis / 1000 + 2, () -> "at most one an interval\n" + run);
        }
    }

    @Test
    void observeModeSaysEachKindOfDecisionOnceAndCountsTheRest() throws Exception {
        int records = 40;
        int admitted = 5;
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, admitted, 600_000))) {
            ScraperRun run = ScraperRun.run(new ChildJvm(Jdk.JAVA_17).jvmArg(SUMMARY_EVERY_SECOND),
                    "mode = observe\ndefault.min-sleep = 10s\n", "jdk", portal.baseUrl(), records);
            assertEquals(records - admitted, run.refused, () -> "every later request refused, and the refusal handed back\n" + run);

            List<String> lines = run.jvm.agentLines();
            List<String> summaries = lines.stream().filter(l -> l.contains("(observe mode: nothing was held back)")).collect(Collectors.toList());
            List<String> rest = new ArrayList<>(lines);
            rest.removeAll(summaries);
            // The start line, a line per kind of would-be decision (a retry, a wait), what a refusal taught, the report's line.
            assertTrue(rest.size() <= 10, () -> rest.size() + " lines for " + (records - admitted) + " refusals: bounded\n" + run);
            assertTrue(rest.stream().anyMatch(l -> l.contains(" -> would retry in ") && l.contains(" [HEADER_AS_HINT; category unknown] (observe mode: not done)")),
                    () -> "the reason named as JMX and status name it\n" + run);
            assertTrue(summaries.size() <= run.elapsedMillis / 1000 + 2, () -> "at most a summary an interval\n" + run);
            assertEquals(records - admitted, run.report().host("127.0.0.1:" + portal.port()).number("wouldRetry"),
                    () -> "every refusal is counted all the same\n" + run);
        }
    }

    @Test
    void theLogFileGetsTheLinesAndIsOpenedAgainWhenLogrotateMovesItAway() throws Exception {
        Path dir = Files.createTempDirectory(ChildJvm.workDir(), "log-file-");
        Path log = dir.resolve("agent.log");
        Path rotated = dir.resolve("agent.log.1");
        Path policy = dir.resolve("policies.properties");
        Path state = dir.resolve("agent.state");
        Files.writeString(policy, "log-file = " + log + "\nlog-level = debug\ndefault.rate = 120/min\nstate-file = " + state + "\n");
        try (PortalServer portal = roomyPortal()) {
            ChildJvm child = new ChildJvm(Jdk.JAVA_17).timeout(Duration.ofSeconds(180));
            Clients.onClasspath(child, "jdk");
            child.withAgent("config=" + policy).main("dev.retryafter.demo.scraper.LegacyScraper")
                    .args(List.of("--client", Clients.scraperArgument("jdk"), "--url", portal.baseUrl(), "--records", "30"));
            ChildJvm.Running running = child.start();
            awaitInFile(running, log, " waited ");
            Files.move(log, rotated); // logrotate's default: rename, then the program writes to a new file
            ChildJvm.Result result = running.finish();

            String before = Files.readString(rotated);
            assertTrue(before.contains(" INFO retry-after-agent - on; policies from "), before);
            assertTrue(before.contains("; knowledge in memory, kept in the state file " + state + ";"), () -> "the start line names it\n" + before);
            assertTrue(Files.exists(log), () -> "a new file under the old name\n" + result);
            String after = Files.readString(log);
            assertTrue(after.contains(" waited ") && after.contains(" [PACE]"), () -> "the waits after the rename\n" + after);
            assertTrue(after.contains("127.0.0.1:" + portal.port() + ": 30 requests"), () -> "the exit line too\n" + after);
            assertFalse(result.stderr.contains("retry-after-agent"), () -> "nothing of the agent's on standard error\n" + result);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_8", "JAVA_17"})
    void jsonLinesParseAndCarryHostAndReason(Jdk jdk) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 5, 1_000))) {
            ScraperRun run = ScraperRun.run(jdk, "log-format = json\nlog-level = debug\ndefault.min-sleep = 300ms\n"
                    + "default.max-sleep = 1500ms\ndefault.window = 1s\ndefault.max-attempts = 10\n", "urlconnection", portal.baseUrl(), 12);
            assertEquals(12, run.fetched, run::toString);
            Inconclusive.unlessRefused(portal.stats().refusals, run::toString); // so there are refusals to read

            List<JsonObject> lines = new ArrayList<>();
            for (String line : run.jvm.agentLines()) {
                JsonObject object = JsonParser.parseString(line).getAsJsonObject(); // throws on a line that is not one object
                assertEquals("retry-after-agent", object.get("logger").getAsString(), line);
                assertTrue(object.has("time") && object.has("level") && object.has("message"), line);
                lines.add(object);
            }
            String host = "127.0.0.1:" + portal.port();
            List<JsonObject> refusals = lines.stream().filter(o -> o.has("event") && o.get("event").getAsString().equals("refusal"))
                    .collect(Collectors.toList());
            assertFalse(refusals.isEmpty(), run::toString);
            for (JsonObject refusal : refusals) {
                assertEquals(host, refusal.get("host").getAsString(), refusal::toString);
                assertTrue(refusal.get("reason").getAsString().matches("[A-Z_]+"), refusal::toString);
                assertEquals(429, refusal.get("status").getAsInt(), refusal::toString);
                assertTrue(refusal.get("waitMillis").getAsLong() >= 300, refusal::toString);
            }
            List<JsonObject> waits = lines.stream().filter(o -> o.has("event") && o.get("event").getAsString().equals("wait"))
                    .collect(Collectors.toList());
            assertFalse(waits.isEmpty(), run::toString);
            for (JsonObject wait : waits) {
                assertEquals(host, wait.get("host").getAsString(), wait::toString);
                assertTrue(wait.has("reason") && wait.get("waitedMillis").getAsLong() > 0, wait::toString);
            }
        }
    }

    /** Waits (as long as the JVM runs) until {@code file} has a line containing {@code text}. */
    private static void awaitInFile(ChildJvm.Running running, Path file, String text) throws Exception {
        while (running.process.isAlive()) {
            if (Files.exists(file) && Files.readString(file).contains(text)) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("'" + text + "' never reached " + file + "\n" + running.stderrSoFar());
    }
}
