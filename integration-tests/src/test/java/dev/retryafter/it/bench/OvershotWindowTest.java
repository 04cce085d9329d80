package dev.retryafter.it.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A first streak with no header to go by whose last tries waited past the window's end reads the window too long
 * (65 s for 30 s): after the climb that corrects the pace, the refusal at its top is read near the top, not over that
 * window, where the climb's average would be taken for the limit and held for the rest of the run. Virtual time, the
 * agent with the built-in defaults, one seed; {@code WindowSweep} runs three seeds of every window.
 */
class OvershotWindowTest {

    private static final Contender AGENT = LimiterBenchmark.CONTENDERS.stream()
            .filter(c -> c.name().equals(Contender.AGENT)).findFirst().orElseThrow();

    @Test
    void fourWorkersOnA30sWindowOf300ClimbToItsLimit() {
        // Read over the 65 s window: 488 let through, 7.5 a second for the rest of the run; 0.65 of the limit.
        assertLearnsWell(300, 4, 0.72);
    }

    @Test
    void oneWorkerOnA30sWindowOf60ClimbsToItsLimit() {
        assertLearnsWell(60, 1, 0.86); // 0.83 when read over the window
    }

    private static void assertLearnsWell(int limit, int workers, double efficiency) {
        LimiterShape shape = LimiterShape.fixed("fixed " + limit + " / 30 s", limit, 30_000, 429, LimiterShape.Header.ZERO);
        LimiterRun.Result run = LimiterRun.run(shape, workers, 2_000, LimiterBenchmark.LATENCY_MILLIS, 1, AGENT);
        assertTrue(run.efficiency() >= efficiency, shape.name() + ", " + workers + " workers: efficiency " + run.efficiency());
        assertTrue(run.refusedAfterFirstPeriod() <= 0.01, "refused after the first window: " + run.refusedAfterFirstPeriod());
        assertTrue(run.lost() == 0, "records lost: " + run.lost());
    }
}
