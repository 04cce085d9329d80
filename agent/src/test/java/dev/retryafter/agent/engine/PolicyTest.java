package dev.retryafter.agent.engine;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PolicyTest {

    @Test
    void defaultsAreTheDocumentedOnes() {
        Policy p = Policy.DEFAULTS;
        assertEquals(1_000, p.minSleepMillis());
        assertEquals(300_000, p.maxSleepMillis());
        assertEquals(5, p.maxAttempts());
        assertEquals(8, p.maxConcurrency());
        assertEquals(500, p.backoffBaseMillis());
        assertEquals(60_000, p.backoffCapMillis());
        assertEquals(60_000, p.windowMillis());
        assertEquals(0.9, p.headroom());
        assertTrue(p.isRefusal(429) && p.isRefusal(503) && !p.isRefusal(500));
        assertEquals(null, p.pinnedCategory());
        assertEquals(0, p.startRatePerSecond());
    }

    @Test
    void aBadValueNamesTheSetting() {
        assertEquals("max-sleep", assertThrows(Policy.InvalidSetting.class,
                () -> Policy.builder().minSleepMillis(5_000).maxSleepMillis(1_000).build()).setting());
        assertEquals("min-sleep", assertThrows(Policy.InvalidSetting.class,
                () -> Policy.builder().minSleepMillis(0).build()).setting());
        assertEquals("headroom", assertThrows(Policy.InvalidSetting.class,
                () -> Policy.builder().headroom(1.5).build()).setting());
        assertEquals("retry-statuses", assertThrows(Policy.InvalidSetting.class,
                () -> Policy.builder().retryStatuses(200).build()).setting());
        assertEquals("max-concurrency", assertThrows(Policy.InvalidSetting.class,
                () -> Policy.builder().maxConcurrency(0).build()).setting());
    }

    @Test
    void aPolicyIsAValueTheBuilderCopies() {
        int[] statuses = {429};
        Policy.Builder builder = Policy.builder().retryStatuses(statuses);
        Policy p = builder.build();
        statuses[0] = 500;
        builder.maxAttempts(9);
        assertTrue(p.isRefusal(429));
        assertFalse(p.isRefusal(500));
        assertEquals(5, p.maxAttempts());
        assertEquals(9, p.toBuilder().maxAttempts(9).build().maxAttempts());
    }
}
