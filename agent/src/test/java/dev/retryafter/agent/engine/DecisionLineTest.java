package dev.retryafter.agent.engine;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DecisionLineTest {

    @Test
    void oneLineNamesHostAttemptStatusHeaderWaitReasonAndCategory() throws Exception {
        EngineFixture f = new EngineFixture(Policy.DEFAULTS);
        Call call = f.engine.open("127.0.0.1", 8081, true);
        call.awaitTurn();
        call.onResponse(429, "0");
        String line = DecisionLine.format(call.lastDecision());
        assertEquals("127.0.0.1:8081 429 attempt 1/5 Retry-After=\"0\" -> retry in 1.000s: "
                + "max(header, backoff): header not proven truthful, raised to min-sleep [unknown]", line);
    }

    @Test
    void aLongHeaderIsCutAndControlCharactersAreEscaped() {
        String quoted = DecisionLine.quoted("x".repeat(100));
        assertTrue(quoted.startsWith("\"" + "x".repeat(64) + "...(100 chars)"), quoted);
        assertEquals("\"1\\u000d\\u000aSet-Cookie: a\"", DecisionLine.quoted("1\r\nSet-Cookie: a"));
        assertEquals("none", DecisionLine.quoted(null));
        assertEquals("\"\\u009b31m\"", DecisionLine.quoted("\u009b31m"), "a C1 control introducer is escaped too");
    }
}
