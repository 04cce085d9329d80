package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.demo.portal.PortalStats;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Clients;
import dev.retryafter.it.harness.Inconclusive;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.ScraperRun;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static dev.retryafter.it.LyingHeadersTest.POLICY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The class cache (start-up cost): a JVM started again takes the client classes the agent changed
 * from the cache, never running Byte Buddy, and is governed exactly as the first was; a cache
 * directory others may write to is not used, and the agent says so and changes classes afresh.
 */
@Execution(ExecutionMode.CONCURRENT)
class ClassCacheTest {

    private static final int RECORDS = 8;
    private static final String FROM_CACHE = "(from the class cache)";

    @TempDir
    Path dir;

    /** The blocking clients on the build's JDK, and Java 8's own pair. */
    static Stream<Arguments> clients() {
        return Stream.concat(Clients.ON_EVERY_JDK.stream().map(client -> Arguments.of(Jdk.JAVA_17, client)),
                Stream.of(Arguments.of(Jdk.JAVA_8, "urlconnection"), Arguments.of(Jdk.JAVA_8, "apache4")));
    }

    private ScraperRun run(Jdk jdk, String client, Path cache) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.TRUTHFUL, 4, 1_000))) {
            ChildJvm jvm = new ChildJvm(jdk).jvmArg("-Dretry-after-agent.log-level=debug");
            ScraperRun run = ScraperRun.run(jvm, POLICY + "class-cache = " + cache + "\n", client, portal.baseUrl(), RECORDS);
            assertEquals(0, run.jvm.exitCode, run::toString);
            assertEquals(RECORDS, run.fetched, () -> "every refusal retried by the agent\n" + run);
            PortalStats stats = portal.stats();
            Inconclusive.unlessRefused(stats.refusals, () -> "the portal refused, so the run was governed\n" + stats); // a busy machine sends slower
            return run;
        }
    }

    private static List<String> instrumented(ScraperRun run) {
        return run.jvm.stderr.lines().filter(line -> line.contains("DEBUG retry-after-agent - instrumented ")).collect(Collectors.toList());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("clients")
    void aSecondStartTakesTheChangedClassesFromTheCacheAndIsGovernedTheSame(Jdk jdk, String client) throws Exception {
        Path cache = dir.resolve("classes");
        ScraperRun first = run(jdk, client, cache);
        List<String> changed = instrumented(first);
        assertFalse(changed.isEmpty(), first::toString);
        assertTrue(changed.stream().noneMatch(line -> line.contains(FROM_CACHE)), () -> "an empty cache: changed afresh\n" + changed);
        try (Stream<Path> entries = Files.list(cache)) {
            assertEquals(changed.size(), entries.count(), "one entry per class changed");
        }

        ScraperRun second = run(jdk, client, cache);
        List<String> again = instrumented(second);
        assertEquals(changed.size(), again.size(), () -> second.toString());
        assertTrue(again.stream().allMatch(line -> line.contains(FROM_CACHE)), () -> "every class from the cache\n" + again);
        assertEquals(first.refused, second.refused);
    }

    /** One client per JDK: the check is the agent's, not a client's. */
    static Stream<Arguments> oneClientPerJdk() {
        return Stream.of(Jdk.JAVA_17, Jdk.JAVA_8).map(jdk -> Arguments.of(jdk, Clients.plainOn(jdk)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("oneClientPerJdk")
    void aCacheOthersMayWriteToIsNotUsed(Jdk jdk, String client) throws Exception {
        Path cache = Files.createDirectory(dir.resolve("open"));
        Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString("rwxrwxrwx"));
        ScraperRun run = run(jdk, client, cache);
        assertTrue(run.jvm.stderr.contains("WARN retry-after-agent - no class cache: " + cache + " may be written by others (mode 777)"),
                run::toString);
        assertTrue(instrumented(run).stream().noneMatch(line -> line.contains(FROM_CACHE)), run::toString);
        try (Stream<Path> entries = Files.list(cache)) {
            assertEquals(0, entries.count(), "nothing written there either");
        }
    }
}
