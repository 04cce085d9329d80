package dev.retryafter.agent.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StateFileSettingsTest {

    @TempDir
    Path dir;

    private AgentConfig read(String text) throws Exception {
        Path file = dir.resolve("policies.properties");
        Files.writeString(file, text);
        return PolicyFile.read(file, Collections.emptyList());
    }

    @Test
    void noStateFileUnlessOneIsNamed() throws Exception {
        AgentConfig config = read("enabled = true\n");
        assertNull(config.stateFile().path());
        assertEquals(60_000, config.stateFile().intervalMillis());
        assertEquals(7 * 24 * 3_600_000L, config.stateFile().maxAgeMillis());
        assertNull(AgentConfig.defaults().stateFile().path());
    }

    @Test
    void theStateFileItsIntervalAndItsMaximumAge() throws Exception {
        AgentConfig config = read("state-file = /var/lib/scraper/retry-after.state\nstate-interval = 30s\nstate-max-age = 48h\n");
        assertEquals("/var/lib/scraper/retry-after.state", config.stateFile().path());
        assertEquals(30_000, config.stateFile().intervalMillis());
        assertEquals(48 * 3_600_000L, config.stateFile().maxAgeMillis());
    }

    @Test
    void theAgentArgumentCanNameIt() throws Exception {
        AgentConfig config = AgentArguments.load("state-file=/tmp/x.state,state-interval=5s", Map.of());
        assertEquals("/tmp/x.state", config.stateFile().path());
        assertEquals(5_000, config.stateFile().intervalMillis());
        assertEquals("/tmp/x.state", config.withEnabled(false, "test").stateFile().path(), "kept when switched");
    }

    @Test
    void aZeroIntervalIsAnErrorNamingItsLine() throws Exception {
        Path file = dir.resolve("policies.properties");
        Files.writeString(file, "enabled = true\nstate-interval = 0s\n");
        ConfigException e = assertThrows(ConfigException.class, () -> PolicyFile.read(file, Collections.emptyList()));
        assertTrue(e.getMessage().contains(":2") && e.getMessage().contains("state-interval"), e.getMessage());
    }

    @Test
    void aMisspeltKeyIsSuggested() throws Exception {
        Path file = dir.resolve("policies.properties");
        Files.writeString(file, "state-flie = /tmp/x\n");
        ConfigException e = assertThrows(ConfigException.class, () -> PolicyFile.read(file, Collections.emptyList()));
        assertTrue(e.getMessage().contains("state-file"), e.getMessage());
    }
}
