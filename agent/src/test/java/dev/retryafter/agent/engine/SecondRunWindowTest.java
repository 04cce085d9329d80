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

    @Test
    void aSecondRunThatStartsPacedKeepsTheWindowTheFirstLearned() throws Exception {
        VirtualClock clock = new VirtualClock();
        KnowledgeStore first = new InMemoryKnowledgeStore();
        FixedWindowPortal portal = new FixedWindowPortal(20, 2_000, clock.millis());
        portal.fetch(run(clock, first), 200, now -> "0");
        clock.advance(3_600_000);
        // As a state file hands it over: the pace's curve begun again, so the second run starts paced, below the limit.
        KnowledgeStore second = new InMemoryKnowledgeStore();
        second.merge("portal.example:443", first.read("portal.example:443").restartedAt(clock.millis()));
        EngineFixture run = run(clock, second);
        portal.fetch(run, 400, now -> "0");
        HostSnapshot host = run.host().snapshot(clock.millis());
        assertTrue(host.windowMillis <= 3_000, "the 2 s window, not the time to the second run's first refusal: " + host.windowMillis);
    }

    private static EngineFixture run(VirtualClock clock, KnowledgeStore store) {
        return new EngineFixture(clock, store);
    }
}
