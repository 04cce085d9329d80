package dev.retryafter.agent;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The entry class on a JVM older than the agent supports: one line, nothing thrown, nothing started. */
class AgentEntryTest {

    @Test
    void onJava7ItSaysSoInOneLineAndReturns() {
        String version = System.getProperty("java.specification.version");
        PrintStream err = System.err;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try {
            System.setProperty("java.specification.version", "1.7");
            System.setErr(new PrintStream(printed, true, StandardCharsets.UTF_8));
            AgentEntry.premain("enabled=true", null); // a null Instrumentation: anything past the check would fail
            AgentEntry.agentmain(null, null);
        } finally {
            System.setErr(err);
            System.setProperty("java.specification.version", version);
        }
        String[] lines = printed.toString(StandardCharsets.UTF_8).split("\n");
        assertEquals(2, lines.length, () -> printed.toString(StandardCharsets.UTF_8));
        for (String line : lines) {
            assertTrue(line.startsWith("retry-after-agent needs Java 8 or later; this JVM is Java 1.7: the agent is off"), line);
        }
    }
}
