package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Inconclusive;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.MinSleepFloor;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code java -jar retry-after-agent.jar list | attach | status}, run as an operator runs them: a
 * separate process, on the same Java as the JVM it acts on, a JVM started without the agent.
 */
@Execution(ExecutionMode.CONCURRENT)
class CommandLineTest {

    static final Duration PATIENCE = Duration.ofSeconds(60);

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_17", "JAVA_25"})
    void listAttachOnceThenStatusShowsTheHosts(Jdk jdk) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 1_000))) {
            ChildJvm.Running app = new ChildJvm(jdk).classpathEntry(TestClasspath.testClasses())
                    .main("dev.retryafter.it.apps.CommandedFetcherApp", portal.baseUrl()).start();
            try {
                String pid = app.awaitLine("READY", PATIENCE).split(" ")[1];

                Cli list = Cli.run(jdk, "list");
                assertEquals(0, list.exitCode, list::toString);
                assertTrue(list.stdout.lines().anyMatch(line -> line.matches(pid + " +no +dev\\.retryafter\\.it\\.apps\\.CommandedFetcherApp")),
                        list::toString);

                Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
                Files.writeString(policy, LyingHeadersTest.POLICY);
                Cli attach = Cli.run(jdk, "attach", pid, policy.toString());
                assertEquals(0, attach.exitCode, attach::toString);
                assertTrue(attach.stdout.contains("attached: retry-after-agent 0.1.0-SNAPSHOT is on in " + pid), attach::toString);
                assertEquals(jdk.feature() >= 21, attach.stdout.contains("JEP 451") && attach.stdout.contains("-XX:+EnableDynamicAgentLoading"),
                        attach::toString);

                Cli again = Cli.run(jdk, "attach", pid, policy.toString());
                assertEquals(0, again.exitCode, again::toString);
                assertTrue(again.stdout.contains("already attached"), again::toString);

                Cli listed = Cli.run(jdk, "list");
                assertTrue(listed.stdout.lines().anyMatch(line -> line.matches(pid + " +yes 0\\.1\\.0-SNAPSHOT +.*CommandedFetcherApp")),
                        listed::toString);

                Set<String> listening = listeningSockets(pid);
                Cli before = Cli.run(jdk, "status", pid);
                assertEquals(0, before.exitCode, before::toString);
                assertTrue(before.stdout.contains("no MBeans yet"), before::toString);

                app.send("fetch 12");
                assertEquals("FETCHED 1 ok=12 refused=0", app.awaitLine("FETCHED 1 ", PATIENCE), "governed: every refusal retried");
                Inconclusive.unlessRefused(portal.stats().refusals, portal.stats()::toString);
                MinSleepFloor.assertKept(portal.stats().shortestGapAfterAnyRefusalMillis, LyingHeadersTest.MIN_SLEEP, portal.stats()::toString);

                String requests = Long.toString(portal.stats().requests);
                String refusals = Long.toString(portal.stats().refusals);
                String hostLine = awaitHostLine(jdk, pid, "127.0.0.1:" + portal.port(), requests);
                String[] columns = hostLine.trim().split(" +");
                assertEquals(requests, columns[2], hostLine);
                assertEquals(refusals, columns[3], hostLine);
                assertEquals(listening, listeningSockets(pid), "status left nothing listening in the JVM it read");

                app.send("exit");
                ChildJvm.Result result = app.finish();
                assertEquals(0, result.exitCode, result::toString);
                assertEquals(1, result.stderr.lines().filter(line -> line.contains("retry-after-agent - on; policies from")).count(),
                        () -> "loaded once\n" + result);
                assertFalse(result.stderr.contains("second attach"), result::toString);
                assertEquals(jdk.feature() >= 21 ? 1 : 0, result.stderr.lines().filter(line -> line.contains("agent has been loaded dynamically")).count(),
                        () -> "attach loaded it; status loads nothing\n" + result);
            } finally {
                app.process.destroyForcibly();
            }
        }
    }

    /** {@code help}, and clear errors for what cannot be done. */
    @org.junit.jupiter.api.Test
    void helpAndClearErrors() throws Exception {
        Cli help = Cli.run(Jdk.JAVA_17, "help");
        assertEquals(0, help.exitCode, help::toString);
        assertTrue(help.stdout.contains("attach PID [ARGUMENT]") && help.stdout.contains("status PID"), help::toString);
        Cli unknown = Cli.run(Jdk.JAVA_17, "attach", "not-a-pid");
        assertEquals(2, unknown.exitCode, unknown::toString);
        assertTrue(unknown.stderr.contains("'not-a-pid' is not a process id"), unknown::toString);
        Cli gone = Cli.run(Jdk.JAVA_17, "status", "2147483646");
        assertEquals(1, gone.exitCode, gone::toString);
        assertTrue(gone.stderr.contains("no process with pid 2147483646"), gone::toString);
    }

    /** Java 8 has no attach API in its class path: one clear line, not a stack trace. */
    @org.junit.jupiter.api.Test
    void onJava8ItSaysWhatItNeeds() throws Exception {
        Cli old = Cli.run(Jdk.JAVA_8, "list");
        assertEquals(2, old.exitCode, old::toString);
        assertTrue(old.stderr.contains("needs Java 9 or later"), old::toString);
    }

    /**
     * The TCP sockets {@code pid} listens on, as {@code local address:port} in hex: the listeners of
     * /proc/net/tcp and tcp6 whose inodes are among the process's own descriptors.
     */
    private static Set<String> listeningSockets(String pid) throws IOException {
        Path fds = Path.of("/proc", pid, "fd");
        Assumptions.assumeTrue(Files.isDirectory(fds), "no /proc here to read the JVM's sockets from");
        Set<String> inodes = new HashSet<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(fds)) {
            for (Path fd : entries) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring("socket:[".length(), target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // not a socket of this moment
                }
            }
        }
        Set<String> listening = new TreeSet<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            List<String> lines = Files.readAllLines(Path.of(table));
            for (String line : lines.subList(1, lines.size())) { // after the heading
                String[] columns = line.trim().split("\\s+");
                if (columns[3].equals("0A") && inodes.contains(columns[9])) { // 0A: LISTEN
                    listening.add(columns[1]);
                }
            }
        }
        return listening;
    }

    /**
     * The status follows the hosts about once a second: asks {@code status} again until the host is
     * there with all its {@code requests}.
     */
    private static String awaitHostLine(Jdk jdk, String pid, String host, String requests) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            Cli status = Cli.run(jdk, "status", pid);
            assertEquals(0, status.exitCode, status::toString);
            for (String line : status.stdout.split("\n")) {
                if (line.startsWith(host + " ") && line.trim().split(" +")[2].equals(requests)) {
                    assertTrue(status.stdout.contains("retry-after-agent 0.1.0-SNAPSHOT in " + pid + ": mode enforce, enabled"),
                            status::toString);
                    assertTrue(status.stdout.contains("HOST") && status.stdout.contains("LAST REASON"), status::toString);
                    return line;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("status never showed " + host + " with " + requests + " requests:\n" + status);
            }
            Thread.sleep(200);
        }
    }

    /** One run of the command line. */
    static final class Cli {
        final int exitCode;
        final String stdout;
        final String stderr;

        private Cli(int exitCode, String stdout, String stderr) {
            this.exitCode = exitCode;
            this.stdout = stdout;
            this.stderr = stderr;
        }

        static Cli run(Jdk jdk, String... args) throws IOException, InterruptedException {
            List<String> command = new ArrayList<>(List.of(jdk.javaOrSkip().toString(), "-jar", ChildJvm.agentJar().toString()));
            command.addAll(Arrays.asList(args));
            Path dir = Files.createTempDirectory(ChildJvm.workDir(), "cli-");
            Path out = dir.resolve("stdout.txt");
            Path err = dir.resolve("stderr.txt");
            ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
                    .redirectOutput(out.toFile()).redirectError(err.toFile());
            builder.environment().putAll(jdk.environment());
            Process process = builder.start();
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly().waitFor();
                throw new AssertionError("did not finish: " + command);
            }
            return new Cli(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
        }
    }
}
