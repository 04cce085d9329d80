package dev.retryafter.agent.jmx;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ManagementBeansTest {

    @Test
    void aNamedLogManagerNotLoadableYetHoldsTheMBeansBack() {
        assertTrue(ManagementBeans.logManagerLoadable(null), "none named: JUL's own is what the application gets anyway");
        assertTrue(ManagementBeans.logManagerLoadable("java.util.logging.LogManager"));
        assertFalse(ManagementBeans.logManagerLoadable("org.jboss.logmanager.LogManager"), "a module system's, not loadable yet");
    }

    @Test
    void hostNamesAreQuoted() throws Exception {
        assertEquals("dev.retryafter:type=Host,name=\"127.0.0.1:8080\"", ManagementBeans.hostName("127.0.0.1:8080").toString());
    }
}
