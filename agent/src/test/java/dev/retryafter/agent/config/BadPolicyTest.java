package dev.retryafter.agent.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BadPolicyTest {

    @TempDir
    Path dir;

    @Test
    void aBrokenFileThatSaysOffKeepsTheAgentOff() throws Exception {
        Path file = write("on-bad-policy = off  # no agent rather than a guessed one\ndefault.max-sleeep = 3s\n");
        assertThrows(ConfigException.class, () -> AgentArguments.load(file.toString(), Collections.emptyMap()));
        assertTrue(BadPolicy.keepsAgentOff(file.toString()));
        assertTrue(BadPolicy.keepsAgentOff("config=" + file + ",mode=observe"));
    }

    @Test
    void otherwiseTheDefaultsGovern() throws Exception {
        assertFalse(BadPolicy.keepsAgentOff(write("default.max-sleeep = 3s\n").toString()));
        assertFalse(BadPolicy.keepsAgentOff(write("on-bad-policy = defaults\ndefault.max-sleeep = 3s\n").toString()));
        assertFalse(BadPolicy.keepsAgentOff("/no/such/policies.properties"), "a file that cannot be read says nothing");
        assertFalse(BadPolicy.keepsAgentOff(null));
        assertTrue(BadPolicy.keepsAgentOff("on-bad-policy=off,default.max-sleeep=3s"));
    }

    @Test
    void theSettingIsCheckedInAFileThatParses() throws Exception {
        assertTrue(AgentArguments.load(write("on-bad-policy = off\n").toString(), Collections.emptyMap()).enabled());
        ConfigException wrong = assertThrows(ConfigException.class,
                () -> AgentArguments.load(write("on-bad-policy = maybe\n").toString(), Collections.emptyMap()));
        assertTrue(wrong.getMessage().contains("on-bad-policy: 'maybe' is not defaults or off"), wrong.getMessage());
    }

    @Test
    void theDefaultsNameTheProblemAsTheirSource() {
        AgentConfig config = AgentConfig.defaultsAfter("policies.properties:3: default.max-sleeep: unknown key");
        assertTrue(config.enabled());
        assertEquals("the built-in defaults, since policies.properties:3: default.max-sleeep: unknown key", config.source());
    }

    private Path write(String text) throws Exception {
        Path file = Files.createTempFile(dir, "policies-", ".properties");
        Files.write(file, text.getBytes(StandardCharsets.UTF_8));
        return file;
    }
}
