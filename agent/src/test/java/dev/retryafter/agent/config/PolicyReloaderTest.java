package dev.retryafter.agent.config;

import dev.retryafter.agent.engine.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Asserts that the policy file is re-read on change, through a file move or a symlink swap, and a broken edit is said once and not applied. */
class PolicyReloaderTest {

    @TempDir
    Path dir;

    private final List<AgentConfig> applied = new ArrayList<>();
    private final List<Boolean> modeChanges = new ArrayList<>();
    private final List<String> info = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();

    private PolicyReloader reloader(Path file) throws Exception {
        AgentConfig config = PolicyFile.read(file, Collections.emptyList());
        return new PolicyReloader(config, (next, modeChanged) -> {
            applied.add(next);
            modeChanges.add(modeChanged);
        }, info::add, warnings::add);
    }

    private void replace(Path file, String text) throws Exception {
        Path next = dir.resolve("next.properties");
        Files.write(next, text.getBytes(StandardCharsets.UTF_8));
        Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    @Test
    void aValidEditIsAppliedAndSaidInOneLine() throws Exception {
        Path file = dir.resolve("policies.properties");
        replace(file, "policy.slow.hosts = 127.0.0.1\npolicy.slow.max-concurrency = 2\nstate-file = /tmp/a\n");
        PolicyReloader reloader = reloader(file);
        reloader.check();
        assertTrue(applied.isEmpty(), "nothing changed yet");

        replace(file, "mode = observe\npolicy.slow.hosts = 127.0.0.1\npolicy.slow.max-concurrency = 1\nstate-file = /tmp/b\n"
                + "policy.new.hosts = example.org\npolicy.new.max-attempts = 2\n");
        reloader.check();
        assertEquals(1, applied.size());
        assertEquals(1, applied.get(0).policies().policyFor("127.0.0.1", 80).maxConcurrency());
        assertEquals(2, applied.get(0).policies().policyFor("example.org", 443).maxAttempts());
        assertEquals(Mode.OBSERVE, applied.get(0).mode());
        assertTrue(modeChanges.get(0));
        assertEquals(1, info.size());
        assertEquals("policies reloaded from " + file + ": policy.slow.max-concurrency 2 -> 1; "
                + "state-file /tmp/a -> /tmp/b (takes a restart, not applied); mode = observe added; policy.new added", info.get(0));
    }

    @Test
    void aBrokenEditIsSaidOnceAndTheOldPolicyStays() throws Exception {
        Path file = dir.resolve("policies.properties");
        replace(file, "default.max-attempts = 3\n");
        PolicyReloader reloader = reloader(file);
        replace(file, "default.max-attempts = 3\ndefault.max-concurency = 2\n");
        reloader.check();
        reloader.check();
        assertTrue(applied.isEmpty());
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).startsWith(file + ":2: default.max-concurency: unknown key"), warnings.get(0));
        assertTrue(warnings.get(0).endsWith("the edit is rejected and the policy in force stays"), warnings.get(0));

        replace(file, "default.max-attempts = 2\n");
        reloader.check();
        assertEquals(1, applied.size(), "the fixed file is taken");
        assertEquals("policies reloaded from " + file + ": default.max-attempts 3 -> 2", info.get(0));
    }

    @Test
    void aConfigMapSymlinkSwapIsSeen() throws Exception {
        // Kubernetes: policies.properties -> ..data/policies.properties, ..data -> ..2026_01_01 (swapped atomically)
        Path first = Files.createDirectory(dir.resolve("..v1"));
        Files.write(first.resolve("policies.properties"), "default.max-attempts = 3\n".getBytes(StandardCharsets.UTF_8));
        Files.createSymbolicLink(dir.resolve("..data"), first.getFileName());
        Path file = Files.createSymbolicLink(dir.resolve("policies.properties"), dir.getFileSystem().getPath("..data", "policies.properties"));
        PolicyReloader reloader = reloader(file);

        Path second = Files.createDirectory(dir.resolve("..v2"));
        Files.write(second.resolve("policies.properties"), "default.max-attempts = 4\n".getBytes(StandardCharsets.UTF_8));
        Path link = Files.createSymbolicLink(dir.resolve("..data_tmp"), second.getFileName());
        Files.move(link, dir.resolve("..data"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        reloader.check();
        assertEquals(1, applied.size());
        assertEquals(4, applied.get(0).policies().defaults().maxAttempts());
    }

    /**
     * Issue 28, item 7: a policy file larger than any policy (a path to a log, or to /dev/zero, which
     * filled a 128 MB application's heap) is not read past 1 MiB; it is said once, and nothing applied.
     */
    @Test
    void aFileLargerThanAnyPolicyIsNotReadAndSaidOnce() throws Exception {
        Path file = dir.resolve("policies.properties");
        replace(file, "default.max-attempts = 3\n");
        PolicyReloader reloader = reloader(file);
        StringBuilder large = new StringBuilder("default.max-attempts = 2\n");
        while (large.length() <= PolicyFile.MAX_BYTES) {
            large.append("# a comment that pads the file past what any policy file holds\n");
        }
        replace(file, large.toString());
        reloader.check();
        reloader.check();
        assertTrue(applied.isEmpty(), "not applied");
        assertEquals(1, warnings.size(), warnings.toString());
        assertEquals("policy file " + file + " is larger than 1 MiB, more than any policy file; it is not read (is the path right?);"
                + " the policy in force stays", warnings.get(0));
    }

    @Test
    void aPolicyPathOnDevZeroIsReadNoFurtherThanTheBound() throws Exception {
        Path zero = java.nio.file.Paths.get("/dev/zero");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(zero), "a system with /dev/zero");
        Path file = dir.resolve("policies.properties");
        replace(file, "default.max-attempts = 3\n");
        PolicyReloader reloader = reloader(file);
        Files.delete(file);
        Files.createSymbolicLink(file, zero);
        reloader.check();
        assertTrue(applied.isEmpty(), "not applied");
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("larger than 1 MiB"), warnings.get(0));
        ConfigException atStart = org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class,
                () -> PolicyFile.read(file, Collections.emptyList()));
        assertEquals(file + ": " + PolicyFile.TOO_LARGE, atStart.getMessage());
        assertEquals(null, OffSwitch.offBy(file.toString(), Collections.emptyMap()), "the full read says it");
    }

    @Test
    void reloadNowReadsTheFileChangedOrNotAndSaysWhatCameOfIt() throws Exception {
        Path file = dir.resolve("policies.properties");
        replace(file, "default.max-sleep = 30s\n");
        PolicyReloader reloader = reloader(file);
        PolicyReloader.Result same = reloader.reloadNow(" (from the command line)");
        assertTrue(same.inForce);
        assertEquals("policy file " + file + " re-read (from the command line): no setting changed", same.line);
        replace(file, "default.max-sleep = 20s\n");
        PolicyReloader.Result changed = reloader.reloadNow(" (over JMX)");
        assertEquals("policies reloaded from " + file + " (over JMX): default.max-sleep 30s -> 20s", changed.line);
        assertEquals(20_000, applied.get(applied.size() - 1).policies().defaults().maxSleepMillis());
        replace(file, "default.max-sleeep = 20s\n");
        PolicyReloader.Result broken = reloader.reloadNow("");
        assertEquals(false, broken.inForce);
        assertTrue(broken.line.startsWith(file + ":1: default.max-sleeep: unknown key"), broken.line);
        assertTrue(reloader.reloadNow("").line.startsWith(file + ":1:"), "asked again, said again");
        assertEquals(2, warnings.size());
    }

    @Test
    void pointAtAnotherFileAppliesItOrKeepsThePolicyInForce(@TempDir Path other) throws Exception {
        Path file = dir.resolve("policies.properties");
        replace(file, "default.max-sleep = 30s\n");
        PolicyReloader reloader = reloader(file);
        Path next = other.resolve("next.properties");
        Files.write(next, "default.max-sleep = 30s\npolicy.king.hosts = 127.0.0.1:8081\npolicy.king.max-concurrency = 2\n".getBytes(StandardCharsets.UTF_8));
        PolicyReloader.Result pointed = reloader.pointAt(next, " (from the command line)");
        assertTrue(pointed.inForce);
        assertEquals("policies now from " + next + " (was " + file + ") (from the command line): policy.king added", pointed.line);
        assertEquals(next, reloader.file());
        assertEquals(next + ":3", reloader.current().origin("policy.king.max-concurrency"));
        assertEquals(2, applied.get(applied.size() - 1).policies().policyFor("127.0.0.1", 8081).maxConcurrency());

        PolicyReloader.Result missing = reloader.pointAt(other.resolve("missing.properties"), "");
        assertEquals(false, missing.inForce);
        assertEquals(next, reloader.file(), "the file in force stays");
        reloader.check();
        assertEquals(1, applied.size(), "and is not read again unchanged");
    }
}
