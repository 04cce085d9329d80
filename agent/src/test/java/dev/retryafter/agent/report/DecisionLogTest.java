package dev.retryafter.agent.report;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class DecisionLogTest {

    @Test
    void aHeldLineNamesTheAgentOnceNotTwice() {
        assertEquals("127.0.0.1:18103 is held until 2026-12-03T05:00:00Z (x); the request was not sent",
                DecisionLog.withoutPrefix("retry-after-agent: 127.0.0.1:18103 is held until 2026-12-03T05:00:00Z (x); the request was not sent"));
        assertEquals("something else", DecisionLog.withoutPrefix("something else"));
    }

    @Test
    void aLongHeaderIsCutInJsonAsInText() {
        StringBuilder header = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            header.append('x');
        }
        String cut = DecisionLog.cut(header.toString());
        assertEquals(64 + "...(100 chars)".length(), cut.length(), cut);
        assertEquals("0", DecisionLog.cut("0"));
    }
}
