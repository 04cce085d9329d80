package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Clients;
import dev.retryafter.it.harness.Jdk;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Asserts that a running JVM takes an edited policy file without a restart, whether the file is
 * replaced by a move or, as a Kubernetes ConfigMap is, by swapping a symlink; and that a broken
 * edit is said once, with its file, line and key, while the policy in force goes on working.
 */
class PolicyReloadTest {

    private static final String COMMON = "reload = 200ms\ndefault.min-sleep = 50ms\ndefault.max-sleep = 100ms\n"
            + "default.backoff-base = 50ms\ndefault.backoff-cap = 100ms\n";
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @Test
    void anEditedPolicyFileTakesEffectWithoutARestart() throws Exception {
        // ConfigMap layout: policies.properties -> ..data/policies.properties, ..data -> ..v1
        Path dir = Files.createTempDirectory(ChildJvm.workDir(), "configmap-");
        Path v1 = Files.createDirectory(dir.resolve("..v1"));
        Files.writeString(v1.resolve("policies.properties"), COMMON + "default.max-attempts = 2\n");
        Files.createSymbolicLink(dir.resolve("..data"), Paths.get("..v1"));
        Path file = Files.createSymbolicLink(dir.resolve("policies.properties"), Paths.get("..data", "policies.properties"));

        // One request in ten minutes is let through: every later attempt is refused, so every record uses up its attempts.
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 1, 600_000))) {
            ChildJvm child = new ChildJvm(Jdk.JAVA_17).timeout(Duration.ofSeconds(120))
                    .jvmArg("-Dretry-after-agent.log-level=debug"); // observe mode says each refusal at debug only
            Clients.onClasspath(child, "jdk");
            child.withAgent("config=" + file).main("dev.retryafter.demo.scraper.LegacyScraper")
                    .args(List.of("--client", Clients.scraperArgument("jdk"), "--url", portal.baseUrl(), "--records", "100000"));
            ChildJvm.Running running = child.start();
            try {
                int at = awaitLog(running, 0, Pattern.compile("attempt 2/2 .* -> give up"));

                // 1. A new file moved over the old one.
                replace(v1.resolve("policies.properties"), COMMON + "default.max-attempts = 4\n");
                at = awaitLog(running, at, Pattern.compile("INFO retry-after-agent - policies reloaded from " + Pattern.quote(file.toString())
                        + ": default.max-attempts 2 -> 4\n"));
                at = awaitLog(running, at, Pattern.compile("attempt 4/4 .* -> give up"));

                // 2. A broken edit: said once; the policy in force goes on.
                replace(v1.resolve("policies.properties"), COMMON + "default.max-attempts = 3\ndefault.max-concurency = 1\n");
                String rejected = Pattern.quote(file + ":7: default.max-concurency: unknown key") + ".*the edit is rejected and the policy in force stays";
                int warned = awaitLog(running, at, Pattern.compile("WARN retry-after-agent - " + rejected));
                Thread.sleep(1_500); // seven more looks at the file
                at = awaitLog(running, warned, Pattern.compile("attempt 4/4 .* -> give up"));
                assertEquals(1, count(running.stderrSoFar(), rejected), "said once");
                assertTrue(!running.stderrSoFar().substring(warned).contains("attempt 3/3"), "the broken edit is not applied");

                // 3. A symlink swap, as Kubernetes does it; with it, observe mode: no attempt beyond the first.
                Path v2 = Files.createDirectory(dir.resolve("..v2"));
                Files.writeString(v2.resolve("policies.properties"), COMMON + "mode = observe\ndefault.max-attempts = 3\n");
                Path link = Files.createSymbolicLink(dir.resolve("..data_tmp"), Paths.get("..v2"));
                Files.move(link, dir.resolve("..data"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                at = awaitLog(running, at, Pattern.compile("policies reloaded from .*: default.max-attempts 4 -> 3; mode = observe added"));
                long requestsAtSwitch = portal.stats().requests;
                int firstObserved = awaitLog(running, at, Pattern.compile("attempt 1/3 .* -> would retry in"));
                int observed = firstObserved;
                for (int i = 0; i < 5; i++) {
                    observed = awaitLog(running, observed, Pattern.compile("attempt 1/3 .* -> would retry in"));
                }
                // One scraper thread: the call in flight at the swap ended before the first observed one began.
                String after = running.stderrSoFar().substring(firstObserved);
                assertTrue(!after.contains("attempt 2/3"), () -> "observe mode sends nothing again:\n" + after);
                assertTrue(portal.stats().requests > requestsAtSwitch, "the scraper went on");
            } finally {
                running.process.destroyForcibly().waitFor();
            }
        }
    }

    /**
     * Apache 5 wraps its retry strategy when the client is built, in observe mode here: from the
     * switch to enforce on, the agent retries the refusals, and the strategy beneath stands aside.
     */
    @Test
    void anApacheClientBuiltInObserveModeHasItsRefusalsRetriedOnceTheModeIsEnforce() throws Exception {
        // Waits far longer than a poll of the log: the portal's count between two records' last lines is exact to a request or two.
        String common = "reload = 200ms\ndefault.min-sleep = 300ms\ndefault.max-sleep = 400ms\ndefault.backoff-base = 300ms\n"
                + "default.backoff-cap = 400ms\ndefault.max-attempts = 3\n";
        Path dir = Files.createTempDirectory(ChildJvm.workDir(), "reload-");
        Path file = dir.resolve("policies.properties");
        Files.writeString(file, common + "mode = observe\n");
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 1, 600_000))) {
            ChildJvm child = new ChildJvm(Jdk.JAVA_17).timeout(Duration.ofSeconds(120))
                    .jvmArg("-Dretry-after-agent.log-level=debug"); // observe mode says each refusal at debug only
            Clients.onClasspath(child, "apache5-default");
            child.withAgent("config=" + file).main("dev.retryafter.demo.scraper.LegacyScraper")
                    .args(List.of("--client", Clients.scraperArgument("apache5-default"), "--url", portal.baseUrl(), "--records", "100000"));
            ChildJvm.Running running = child.start();
            try {
                int at = awaitLog(running, 0, Pattern.compile("attempt 1/3 .* -> would retry in"));
                replace(file, common + "mode = enforce\n");
                at = awaitLog(running, at, Pattern.compile("policies reloaded from .*: mode observe -> enforce"));
                String observed = running.stderrSoFar().substring(0, at);
                assertTrue(!observed.contains("attempt 2/3"), () -> "observe mode retried nothing itself:\n" + tail(observed));

                at = awaitLog(running, at, Pattern.compile("attempt 3/3 .* -> give up"));
                long start = portal.stats().requests;
                for (int record = 0; record < 4; record++) {
                    at = awaitLog(running, at, Pattern.compile("attempt 3/3 .* -> give up"));
                }
                long requests = portal.stats().requests - start;
                String log = running.stderrSoFar();
                // Three attempts a record, the agent's. Had the strategy retried beneath each, twice that.
                assertTrue(requests >= 4 * 3 - 2 && requests <= 4 * 3 + 2,
                        () -> requests + " requests for 4 records after the switch\n" + tail(log));
            } finally {
                running.process.destroyForcibly().waitFor();
            }
        }
    }

    private static void replace(Path target, String text) throws Exception {
        Path next = target.resolveSibling("next.properties");
        Files.writeString(next, text);
        Files.move(next, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Waits for {@code pattern} in the agent's log after offset {@code from}; returns where its match ends. */
    private static int awaitLog(ChildJvm.Running running, int from, Pattern pattern) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        String log = "";
        while (System.nanoTime() < deadline && running.process.isAlive()) {
            log = running.stderrSoFar();
            Matcher m = pattern.matcher(log);
            if (m.find(Math.min(from, log.length()))) {
                return m.end();
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no " + pattern + " after offset " + from + " in:\n" + tail(log));
    }

    private static String tail(String log) {
        return log.length() > 6_000 ? "..." + log.substring(log.length() - 6_000) : log;
    }

    private static int count(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }
}
