package dev.retryafter.agent.config;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AgentModeTest {

    @AfterEach
    void enforceAgain() {
        AgentMode.set(AgentMode.ENFORCE);
    }

    @Test
    void enforceByDefaultAndSwitchable() {
        assertEquals(AgentMode.ENFORCE, AgentMode.current());
        AgentMode.set(AgentMode.parse(" Observe "));
        assertEquals("observe", AgentMode.current().label());
    }

    @Test
    void anUnknownModeIsRefusedAndChangesNothing() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AgentMode.parse("watch"));
        assertTrue(e.getMessage().contains("expected enforce or observe"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> AgentMode.set(null));
        assertEquals(AgentMode.ENFORCE, AgentMode.current());
    }
}
