package dev.retryafter.it;

import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.store.file.FileKnowledgeStore;
import dev.retryafter.agent.engine.knowledge.HostKnowledge;
import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.demo.portal.PortalStats;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.ScraperRun;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What one run of a scraper learned, the next run knows: a state file written at exit, read at start.
 * Real child JVMs with the built agent, against a loopback portal.
 */
class StateFileTest {

    /** Ten requests a four-second window, and a truthful header. */
    private static final int LIMIT = 10;
    private static final long WINDOW = 4_000;

    private static String policy(Path state) {
        return "state-file = " + state + "\n"
                + "default.window = 4s\n"
                + "default.min-sleep = 100ms\n"
                + "default.max-sleep = 10s\n";
    }

    @Test
    void aSecondRunPacesFromItsFirstRequestAtTheRateTheFirstLearned() throws Exception {
        Path state = Files.createTempFile(ChildJvm.workDir(), "state-", ".properties");
        Files.delete(state);
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.TRUTHFUL, LIMIT, WINDOW))) {
            ScraperRun first = ScraperRun.run(Jdk.JAVA_17, policy(state), "jdk", portal.baseUrl(), 14);
            PortalStats afterFirst = portal.stats();
            assertEquals(14, first.fetched, first::toString);
            assertTrue(afterFirst.refusals >= 1, () -> "the first run is refused before it learns: " + afterFirst);
            assertTrue(Files.isRegularFile(state), "written at exit");

            Thread.sleep(WINDOW + 500); // the first run's requests are in a window that has ended
            ScraperRun second = ScraperRun.run(Jdk.JAVA_17, policy(state), "jdk", portal.baseUrl(), 10);
            PortalStats afterSecond = portal.stats();
            assertEquals(10, second.fetched, second::toString);
            assertEquals(0, afterSecond.refusals - afterFirst.refusals,
                    () -> "the second run is never refused: it paces at the rate the first learned\n" + second);
            // Unpaced, ten requests to a loopback portal take milliseconds; at 80% of 10 per 4 s, over 4 s.
            assertTrue(second.elapsedMillis >= 3_000, () -> "its first requests are paced: " + second.elapsedMillis + " ms");
            assertTrue(second.jvm.agentLines().stream().anyMatch(line -> line.contains("learned state from " + state + ": 1 hosts")),
                    second::toString);
        }
    }

    @Test
    void aHoldTheFirstRunLearnedIsHonouredByTheSecond() throws Exception {
        Path state = Files.createTempFile(ChildJvm.workDir(), "state-", ".properties");
        Files.delete(state);
        // Two requests per 60 s, truthful: the third is told to wait up to a minute, beyond max-sleep, twice.
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.TRUTHFUL, 2, 60_000))) {
            String policy = "state-file = " + state + "\ndefault.category = truthful\ndefault.max-sleep = 3500ms\n"
                    + "default.min-sleep = 200ms\n";
            ScraperRun first = ScraperRun.run(Jdk.JAVA_17, policy, "jdk", portal.baseUrl(), 5);
            assertTrue(first.failed >= 1 && first.firstFailure().contains("is held until"), first::toString);
            long requestsBefore = portal.stats().requests;

            ScraperRun second = ScraperRun.run(Jdk.JAVA_17, policy, "jdk", portal.baseUrl(), 3);
            assertEquals(3, second.failed, second::toString);
            assertTrue(second.firstFailure().contains("is held until"), second::toString);
            assertEquals(requestsBefore, portal.stats().requests, "the held host sees no request from the second run");
        }
    }

    @Test
    void aCorruptStateFileGivesOneWarningAndAColdStart() throws Exception {
        Path state = Files.createTempFile(ChildJvm.workDir(), "state-", ".properties");
        Files.write(state, new byte[] {'f', 'o', 'r', 'm', 'a', 't', '=', 0x00, (byte) 0xff, '\\', 'u', '1'});
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.TRUTHFUL, 100, 60_000))) {
            ScraperRun run = ScraperRun.run(Jdk.JAVA_17, policy(state), "jdk", portal.baseUrl(), 3);
            assertEquals(3, run.fetched, run::toString);
            List<String> warnings = run.jvm.agentLines().stream().filter(line -> line.contains("set aside as"))
                    .collect(Collectors.toList());
            assertEquals(1, warnings.size(), run::toString);
            assertTrue(warnings.get(0).contains(state.toString()), warnings.get(0));
            List<String> warns = run.jvm.agentLines().stream().filter(line -> line.contains("WARN")).collect(Collectors.toList());
            assertEquals(1, warns.size(), () -> "one warning, nothing else: " + warns);
            try (Stream<Path> aside = Files.list(state.getParent())) {
                assertTrue(aside.anyMatch(p -> p.getFileName().toString().startsWith(state.getFileName() + ".unreadable-")));
            }
            assertTrue(Files.isRegularFile(state), "written afresh at exit");
            List<String> reread = new ArrayList<>();
            FileKnowledgeStore.open(state, Clock.system(), 86_400_000L, reread::add);
            assertTrue(reread.isEmpty(), () -> "the new file reads back: " + reread);
        }
    }

    /** A JVM killed (SIGKILL) while it writes leaves the previous file or the new one, never a torn one. */
    @Test
    void killingAJvmWhileItWritesNeverLeavesATornFile() throws Exception {
        Path state = Files.createTempFile(ChildJvm.workDir(), "state-", ".properties");
        Files.delete(state);
        int hosts = 3_000;
        int tornTemporaries = 0;
        for (int kill = 0; kill < 3; kill++) {
            ChildJvm.Running writer = new ChildJvm(Jdk.JAVA_17).classpathEntry(ChildJvm.agentJar().toString())
                    .classpathEntry(TestClasspath.testClasses())
                    .main("dev.retryafter.it.apps.StateWriterApp", state.toString(), Integer.toString(hosts)).start();
            // The third write is warm: how long one takes. The temporary file is written at the end of one.
            String saved = writer.awaitLine("saved 3 in ", Duration.ofSeconds(120));
            long saveMillis = Long.parseLong(saved.substring("saved 3 in ".length(), saved.indexOf(" ms")));
            writer.awaitLine("writing 4", Duration.ofSeconds(120));
            Thread.sleep(saveMillis * (80 + 8 * kill) / 100); // at 80%, 88% and 96% of the fourth write

            writer.process.destroyForcibly().waitFor();
            try (Stream<Path> left = Files.list(state.getParent())) {
                // A temporary file left behind is a write the kill cut short; the state file itself is whole.
                tornTemporaries += (int) left.filter(p -> p.getFileName().toString().startsWith("." + state.getFileName())).count();
            }

            List<String> warnings = new ArrayList<>();
            Map<String, HostKnowledge> read = FileKnowledgeStore.open(state, Clock.system(), 86_400_000L, warnings::add).snapshot();
            assertTrue(warnings.isEmpty(), () -> "kill " + warnings);
            assertEquals(hosts, read.size(), "a whole file, the previous or the new");
            assertFalse(read.values().iterator().next().learnedCeiling().isEmpty());
        }
        System.out.println("state file: 3 kills while writing, " + tornTemporaries + " temporary files left by cut-short writes");
    }
}
