package dev.retryafter.agent.engine;

import dev.retryafter.agent.testing.PortalRun;
import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Asserts that the pace converges on a portal's real limit: after learning, throughput within 10%
 * of it and refusals under 2% of requests.
 */
class PaceConvergenceTest {

    /** Learning is over after this many windows. */
    private static final int LEARNING_WINDOWS = 5;

    @ParameterizedTest(name = "{0} at {1}/min")
    @CsvSource({
            "TRUTHFUL, 12", "TRUTHFUL, 40", "TRUTHFUL, 120",
            "ABSENT, 12", "ABSENT, 40", "ABSENT, 120",
            "ALWAYS_ZERO, 60", "CONSTANT_OVERSTATED, 60",
    })
    void thePaceConvergesOnTheRealLimit(Behaviour behaviour, int limitPerMinute) {
        EngineFixture f = new EngineFixture(Policy.DEFAULTS);
        PortalModel portal = new PortalModel(behaviour, limitPerMinute, 60_000);
        PortalRun run = PortalRun.fetch(f.engine, f.clock, portal, 40 * limitPerMinute);

        long learnedAt = LEARNING_WINDOWS * 60_000L;
        int recordsAtLearned = 0;
        long refusalsAtLearned = 0;
        for (long[] point : run.timeline) {
            if (point[0] <= learnedAt) {
                recordsAtLearned++;
                refusalsAtLearned = point[1];
            }
        }
        long refusalsAfter = portal.stats().refusals - refusalsAtLearned;
        int recordsAfter = run.fetched - recordsAtLearned;
        double minutesAfter = (run.elapsedMillis - learnedAt) / 60_000.0;
        double achieved = recordsAfter / minutesAfter;

        String summary = String.format("%s at %d/min: %.1f/min after learning, %d refusals for %d records",
                behaviour, limitPerMinute, achieved, refusalsAfter, recordsAfter);
        assertTrue(achieved >= 0.9 * limitPerMinute, summary);
        assertTrue(achieved <= 1.0 * limitPerMinute + 0.5, summary);
        assertTrue(refusalsAfter < 0.02 * (recordsAfter + refusalsAfter), summary);
    }

    @ParameterizedTest(name = "a limit that doubles from {0}/min is found again")
    @CsvSource({"12", "60"})
    void aLimitThatRisesIsFound(int limitPerMinute) {
        EngineFixture f = new EngineFixture(Policy.DEFAULTS);
        long change = 20 * 60_000L;
        PortalModel portal = new PortalModel(Behaviour.LIMIT_DOUBLES, limitPerMinute, 60_000, change, 1);
        PortalRun run = PortalRun.fetch(f.engine, f.clock, portal, 80 * limitPerMinute);
        double lastTwentyMinutes = run.timeline.stream().filter(p -> p[0] > run.elapsedMillis - 20 * 60_000).count() / 20.0;
        assertTrue(lastTwentyMinutes >= 0.9 * 2 * limitPerMinute,
                "only " + lastTwentyMinutes + "/min of a limit now " + 2 * limitPerMinute + "/min");
    }
}
