package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.config.RedisAddress;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The lines of an outage, by themselves: a Redis that flaps for ever is recalled now and then, never at each flap. */
class RedisLinkTest {

    @Test
    void anOutageThatNeverSettlesIsRecalledOncePerIntervalWithItsCounts() throws Exception {
        RecordingEvents events = new RecordingEvents();
        try (RedisLink lines = new RedisLink(RedisAddress.parse("redis://127.0.0.1:6379"), 50, 15_000, events, 1000)) {
            lines.opened("timed out", 3);
            for (int i = 0; i < 20; i++) {
                lines.closed();
                lines.opened("timed out", 3); // flaps well within the interval: nothing more said
            }
            assertEquals(1, events.unavailable.size(), events.unavailable.toString());
            Thread.sleep(1100);
            long token = lines.closed();
            lines.opened("refused", 3);
            lines.steadySince(token); // opened again since: not over
            assertEquals(2, events.unavailable.size(), events.unavailable.toString());
            String recalled = events.unavailable.get(1);
            assertTrue(recalled.contains("still unsteady: 22 interruptions and 66 failed calls"), recalled);
            assertEquals(0, events.restored.size());
            lines.steadySince(lines.closed());
            assertEquals(1, events.restored.size());
            assertTrue(events.restored.get(0).contains("22 interruptions, 66 failed calls"), events.restored.get(0));
        }
    }
}
