package dev.retryafter.agent.log;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The log file as logrotate treats it, and the JSON lines, on a real file system; standard error as an application may leave it. */
class LogFileTest {

    @TempDir
    Path dir;

    @Test
    void aFileMovedAwayIsOpenedAgainUnderItsName() throws Exception {
        Path log = dir.resolve("logs/agent.log");
        AgentLogger logger = new AgentLogger("retry-after-agent", "info");
        logger.use(null, LogFile.open(log), false);
        logger.info("before the rotation");
        Files.move(log, dir.resolve("logs/agent.log.1"));
        logger.info("within the second: still to the file held open"); // CHECK_MILLIS: a stat a second, not one a line
        Thread.sleep(LogFile.CHECK_MILLIS + 100);
        logger.info("after the rotation");

        String rotated = Files.readString(dir.resolve("logs/agent.log.1"));
        assertTrue(rotated.contains(" INFO retry-after-agent - before the rotation"), rotated);
        assertTrue(rotated.contains("within the second"), rotated);
        String fresh = Files.readString(log);
        assertEquals(1, fresh.lines().count(), fresh);
        assertTrue(fresh.contains(" INFO retry-after-agent - after the rotation"), fresh);
    }

    @Test
    void anApplicationThatSetsStandardErrorToNullIsNotThrownInto() {
        AgentLogger logger = new AgentLogger("retry-after-agent", "info");
        java.io.PrintStream err = System.err;
        System.setErr(null); // legal, if odd: the agent's log must not throw into the call it is guarding
        try {
            logger.error("a failure of the agent's own, logged", new IllegalStateException("provoked"));
        } finally {
            System.setErr(err);
        }
    }

    @Test
    void anApplicationsStandardErrorOrArgumentThatThrowsIsNotThrownInto() {
        AgentLogger logger = new AgentLogger("retry-after-agent", "info");
        Object badArgument = new Object() {
            @Override
            public String toString() {
                throw new IllegalStateException("an application's toString");
            }
        };
        java.io.PrintStream err = System.err;
        System.setErr(new java.io.PrintStream(new java.io.OutputStream() {
            @Override
            public void write(int b) {
                throw new IllegalStateException("an application's standard error, routed to its logging, failing");
            }
        }));
        try {
            logger.error("a failure of the agent's own, logged", new IllegalStateException("provoked"));
            logger.warn("an argument {}", badArgument);
            logger.info(LogLine.of("wait", "a line with parts").host("portal.example:443"));
        } finally {
            System.setErr(err);
        }
    }

    @Test
    void aTruncatedFileIsAppendedToAtItsNewEnd() throws Exception {
        Path log = dir.resolve("agent.log");
        AgentLogger logger = new AgentLogger("retry-after-agent", "info");
        logger.use(null, LogFile.open(log), false);
        logger.info("one");
        Files.write(log, new byte[0]); // logrotate's copytruncate
        logger.info("two");
        List<String> lines = Files.readAllLines(log);
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).endsWith(" - two"), lines.toString());
    }

    @Test
    void jsonLinesCarryTheirPartsAsFields() throws Exception {
        Path log = dir.resolve("agent.log");
        AgentLogger logger = new AgentLogger("retry-after-agent", "info");
        logger.use("debug", LogFile.open(log), true);
        logger.debug(LogLine.of("wait", "127.0.0.1:8080 waited 0.42 s: pace 9.3/min [PACE]").host("127.0.0.1:8080").reason("PACE")
                .figure("waitedMillis", 420L).figure("pacePerMinute", 9.3333).figure("mode", "enforce"));
        logger.warn("a \"quoted\" {} and a line\nbreak", "word", new IllegalStateException("provoked"));

        List<String> lines = Files.readAllLines(log);
        assertEquals(2, lines.size(), lines.toString());
        JsonObject wait = JsonParser.parseString(lines.get(0)).getAsJsonObject();
        assertEquals("DEBUG", wait.get("level").getAsString());
        assertEquals("wait", wait.get("event").getAsString());
        assertEquals("127.0.0.1:8080", wait.get("host").getAsString());
        assertEquals("PACE", wait.get("reason").getAsString());
        assertEquals(420, wait.get("waitedMillis").getAsLong());
        assertEquals(9.33, wait.get("pacePerMinute").getAsDouble());
        assertTrue(wait.get("time").getAsString().endsWith("Z"), lines.get(0));
        JsonObject warn = JsonParser.parseString(lines.get(1)).getAsJsonObject();
        assertEquals("a \"quoted\" word and a line\nbreak", warn.get("message").getAsString());
        assertTrue(warn.get("thrown").getAsString().startsWith("java.lang.IllegalStateException: provoked"), lines.get(1));
    }
}
