package dev.retryafter.agent.cli.attach;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TargetsTest {

    @Test
    void aPolicyFileNamedHereReachesTheTargetAsAnAbsolutePath(@TempDir Path dir) throws Exception {
        Path policy = Files.writeString(dir.resolve("p.properties"), "default.max-sleep = 2s\n");
        Path relative = Path.of("").toAbsolutePath().relativize(policy);
        assertEquals(policy.toString(), Targets.absolutePaths(relative.toString()));
        assertEquals("config=" + policy + ",report=r.json", Targets.absolutePaths("config=" + relative + ",report=r.json"));
        assertEquals("enabled=false", Targets.absolutePaths("enabled=false"));
        assertEquals("no-such-file.properties", Targets.absolutePaths("no-such-file.properties"), "the agent names what it cannot read");
        assertEquals(null, Targets.absolutePaths(null));
    }

    @Test
    void javaVersions() {
        assertEquals(8, Targets.feature("1.8"));
        assertEquals(21, Targets.feature("21"));
        assertEquals(0, Targets.feature("?"));
    }

    @Test
    void usageErrorsExitWithTwo() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertEquals(2, Commands.run(new String[] {"attach"}, o, e));
        assertEquals(2, Commands.run(new String[] {"frobnicate"}, o, e));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown command 'frobnicate'"));
        assertEquals(0, Commands.run(new String[0], o, e));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("usage: java -jar retry-after-agent.jar"));
    }

    @Test
    void theSteeringVerbsSayWhatTheyWantAndExitWithTwoWithout() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertEquals(2, Commands.run(new String[] {"mode", "1"}, o, e));
        assertEquals(2, Commands.run(new String[] {"mode", "1", "sideways"}, o, e));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("mode 'sideways': expected observe or enforce"));
        assertEquals(2, Commands.run(new String[] {"forget", "1"}, o, e));
        assertEquals(2, Commands.run(new String[] {"release", "x", "h"}, o, e));
        assertEquals(2, Commands.run(new String[] {"policy"}, o, e));
        assertEquals(1, Commands.run(new String[] {"reload", "1", "no-such-file.properties"}, o, e));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("no-such-file.properties: no such file"));
    }

    @Test
    void attachToARunningAgentPointsItAtAPolicyFileOnly() {
        assertEquals("/etc/p.properties", Targets.policyFileOf("/etc/p.properties"));
        assertEquals("/etc/p.properties", Targets.policyFileOf("config=/etc/p.properties"));
        assertEquals(null, Targets.policyFileOf("config=/etc/p.properties,mode=observe"));
        assertEquals(null, Targets.policyFileOf("enabled=false"));
    }

    @Test
    void helpFitsOneScreen() {
        assertTrue(Commands.USAGE.split("\n").length <= 24, Commands.USAGE);
        for (String line : Commands.USAGE.split("\n")) {
            assertTrue(line.length() <= 120, line);
        }
    }
}
