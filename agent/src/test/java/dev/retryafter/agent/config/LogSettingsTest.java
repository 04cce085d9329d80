package dev.retryafter.agent.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LogSettingsTest {

    @TempDir
    Path dir;

    private Path file(String text) throws Exception {
        Path file = dir.resolve("policies.properties");
        Files.writeString(file, text);
        return file;
    }

    @Test
    void standardErrorInTextUnlessTheFileSaysOtherwise() throws Exception {
        LogSettings log = PolicyFile.read(file("enabled = true\n"), Collections.emptyList()).log();
        assertNull(log.file());
        assertFalse(log.json());
        assertNull(log.level());
        assertNull(AgentConfig.defaults().log().file());
    }

    @Test
    void aFileJsonAndALevel() throws Exception {
        LogSettings log = PolicyFile.read(file("log-file = /var/log/scraper/agent.log\nlog-format = JSON\nlog-level = Debug\n"),
                Collections.emptyList()).log();
        assertEquals("/var/log/scraper/agent.log", log.file());
        assertTrue(log.json());
        assertEquals("debug", log.level());
    }

    @Test
    void aWrongValueIsNamedWithItsLine() throws Exception {
        Path file = file("enabled = true\nlog-format = xml\n");
        ConfigException e = assertThrows(ConfigException.class, () -> PolicyFile.read(file, Collections.emptyList()));
        assertTrue(e.getMessage().contains(":2: log-format: 'xml' is not text or json"), e.getMessage());
        Path level = file("log-level = loud\n");
        e = assertThrows(ConfigException.class, () -> PolicyFile.read(level, Collections.emptyList()));
        assertTrue(e.getMessage().contains("log-level: 'loud' is not debug, info, warn, error or off"), e.getMessage());
    }

    @Test
    void aTypoIsGivenTheKeyItMeant() {
        assertEquals("; did you mean log-file?", PolicyFile.suggestion("log-flie"));
    }

    @Test
    void aChangeTakesARestart() {
        assertTrue(PolicyReloader.takesRestart("log-file"));
        assertTrue(PolicyReloader.takesRestart("log-format"));
        assertTrue(PolicyReloader.takesRestart("log-level"));
    }
}
