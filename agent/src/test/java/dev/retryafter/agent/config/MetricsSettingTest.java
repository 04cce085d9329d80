package dev.retryafter.agent.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code metrics}: off unless written; a bare port is loopback; every mistake names its line. */
class MetricsSettingTest {

    @TempDir
    Path dir;

    private AgentConfig read(String text) throws Exception {
        Path file = dir.resolve("policies.properties");
        Files.writeString(file, text);
        return PolicyFile.read(file, Collections.emptyList());
    }

    @Test
    void offUnlessWritten() throws Exception {
        assertNull(read("default.max-attempts = 3\n").metrics());
        assertNull(read("metrics = off\n").metrics());
        assertNull(read("metrics =\n").metrics());
        assertNull(AgentConfig.defaults().metrics());
    }

    @Test
    void anAddressAndPortOrABarePortOnLoopback() throws Exception {
        MetricsAddress written = read("metrics = 127.0.0.1:9464   # for the node's Prometheus\n").metrics();
        assertEquals("127.0.0.1", written.host());
        assertEquals(9464, written.port());
        assertEquals("127.0.0.1:9464", written.toString());

        MetricsAddress port = read("metrics = 9465\n").metrics();
        assertEquals(MetricsAddress.LOOPBACK, port.host());
        assertEquals(9465, port.port());

        assertEquals("localhost:9464", read("metrics = localhost:9464\n").metrics().toString());
        assertEquals("0.0.0.0:9464", read("metrics = 0.0.0.0:9464\n").metrics().toString());
        MetricsAddress v6 = read("metrics = [::1]:9464\n").metrics();
        assertEquals("::1", v6.host());
        assertEquals("[::1]:9464", v6.toString());
    }

    @Test
    void fromTheAgentArgumentToo() throws Exception {
        Map<String, String> environment = new HashMap<>();
        assertEquals("127.0.0.1:9999", AgentArguments.load("metrics=127.0.0.1:9999", environment).metrics().toString());
    }

    @Test
    void aMistakeNamesItsLineAndSaysHowToWriteIt() throws Exception {
        for (String wrong : List.of("127.0.0.1", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:http", "::1:9464", "[::1]9464", ":9464",
                "http://127.0.0.1:9464/metrics")) {
            Path file = dir.resolve("policies.properties");
            Files.writeString(file, "enabled = true\nmetrics = " + wrong + "\n");
            ConfigException e = assertThrows(ConfigException.class, () -> PolicyFile.read(file, Collections.emptyList()), wrong);
            assertEquals(2, e.line(), wrong);
            assertEquals("metrics", e.key(), wrong);
            assertTrue(e.getMessage().contains("write ") && e.getMessage().contains(wrong.trim()), e.getMessage());
        }
    }

    @Test
    void aTypoIsSuggestedAndAnEditTakesARestart() {
        assertEquals("; did you mean metrics?", PolicyFile.suggestion("metrcs"));
        assertTrue(PolicyReloader.takesRestart("metrics"));
        assertEquals(List.of("metrics = 127.0.0.1:9464 added (takes a restart, not applied)"),
                PolicyReloader.changes(Map.of(), Map.of("metrics", "127.0.0.1:9464")));
    }
}
