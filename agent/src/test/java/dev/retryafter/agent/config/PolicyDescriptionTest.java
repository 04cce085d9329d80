package dev.retryafter.agent.config;

import dev.retryafter.agent.engine.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code policy PID [HOST]}: each setting in force, and where it came from. */
class PolicyDescriptionTest {

    @Test
    void eachSettingNamesItsFileAndLineTheDefaultItInheritsOrTheBuiltIn(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("p.properties");
        Files.write(file, ("# comment\nmode = observe\ndefault.max-sleep = 30s\npolicy.king.hosts = 127.0.0.1:8081, *.kingcounty.gov\n"
                + "policy.king.max-concurrency = 2\npolicy.pierce.hosts = pierce.example\npolicy.pierce.mode = enforce\n").getBytes(StandardCharsets.UTF_8));
        AgentConfig config = AgentArguments.load("config=" + file + ",policy.king.max-attempts=3", Collections.<String, String>emptyMap());
        PolicyDescription description = new PolicyDescription(config, Mode.OBSERVE, config.modeOrigin());

        String king = description.forHost("data.kingcounty.gov:443");
        assertTrue(king.startsWith("data.kingcounty.gov:443 falls under policy king; policies from "), king);
        assertTrue(king.contains("hosts            127.0.0.1:8081, *.kingcounty.gov  " + file + ":4\n"), king);
        assertTrue(king.contains("max-concurrency  2                                 " + file + ":5\n"), king);
        assertTrue(king.contains("max-sleep        30s                               " + file + ":3 (default.max-sleep)\n"), king);
        assertTrue(king.contains("max-attempts     3                                 agent argument\n"), king);
        assertTrue(king.contains("min-sleep        1s                                built-in default\n"), king);
        assertTrue(king.contains("mode             observe                           the agent's mode: " + file + ":2\n"), king);

        String other = description.forHost("example.org:443");
        assertTrue(other.startsWith("example.org:443 falls under no policy: the defaults govern it"), other);
        assertTrue(description.all().contains("policy pierce:\n"), description.all());
        assertEquals("pierce (enforce)", PolicyDescription.ownModes(config));
    }
}
