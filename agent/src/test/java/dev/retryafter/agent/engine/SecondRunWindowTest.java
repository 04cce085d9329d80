package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.knowledge.InMemoryKnowledgeStore;
import dev.retryafter.agent.engine.knowledge.KnowledgeStore;
import dev.retryafter.agent.testing.RecordingListener;
import dev.retryafter.agent.testing.VirtualClock;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** A second run on a store that kept the first's streaks reads its own first period, not one from the first run's last streak. */
class SecondRunWindowTest {

    @Test
    void aSecondRunLearnsTheWindowFromItsOwnFirstPeriod() throws Exception {
        VirtualClock clock = new VirtualClock();
        KnowledgeStore store = new InMemoryKnowledgeStore();
        FixedWindowPortal portal = new FixedWindowPortal(20, 2_000, clock.millis());
        portal.fetch(run(clock, store), 60, now -> "0");
        clock.advance(3_600_000); // the scraper runs again an hour later
        EngineFixture second = run(clock, store);
        portal.fetch(second, 60, now -> "0");
        HostSnapshot host = second.host().snapshot(clock.millis());
        assertTrue(host.windowMillis <= 3_000, "the window of 2 s, not the hour between the runs: " + host.windowMillis);
        assertTrue(host.pacePerMinute() > 0.8 * 600, "paced near 10 a second: " + host.pacePerMinute());
    }

    private static EngineFixture run(VirtualClock clock, KnowledgeStore store) {
        return new EngineFixture(clock, store);
    }
}
