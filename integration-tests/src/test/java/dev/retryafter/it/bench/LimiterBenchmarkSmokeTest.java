package dev.retryafter.it.bench;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.ZonedDateTime;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The limiter benchmark's smoke run (one seed): every cell runs to its end, and the agent keeps what
 * it promises whatever the limiter's shape: never a request sooner than min-sleep after a refusal,
 * never a stall; and every cell but the random header's, whose targets are out of reach as #25 sets them,
 * meets its learning targets (efficiency, refusals after the first window, records lost). The full
 * benchmark judges all of them, and exits non-zero while any is missed: it reports the random header's
 * misses as they are, and this test does not pretend otherwise.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS) // virtual time: only a hang gets near this
class LimiterBenchmarkSmokeTest {

    private static LimiterBenchmark.Settings settings;
    private static List<LimiterBenchmark.Row> rows;

    @BeforeAll
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    static void runTheSmokeBenchmark() {
        settings = LimiterBenchmark.Settings.smoke();
        rows = LimiterBenchmark.run(settings);
        System.out.println(LimiterBenchmark.markdown(settings, rows, ZonedDateTime.now(), 0));
    }

    @Test
    void theAgentNeverSendsSoonerThanMinSleepAfterARefusal() {
        assertAll(agentRows().stream().map(r -> () -> assertTrue(r.shortestGap() >= LimiterBenchmark.FLOOR_MILLIS,
                r.shape() + ", " + r.threads() + " workers: a request " + r.shortestGap() + " ms after a refusal")));
    }

    @Test
    void theAgentNeverStalls() {
        assertAll(agentRows().stream().map(r -> () -> assertTrue(!r.stalled(), r.shape() + ", " + r.threads() + " workers: stalled")));
    }

    /**
     * The cells that miss, told in docs/benchmarks.md ("Where it misses, and why"): every other cell meets every target,
     * so a change that costs one of them fails here, in the test command, not only in the full run.
     */
    static final Set<String> KNOWN_MISSES = Set.of(
            "fixed 50 / 10 s, random Retry-After 0-60 | 1", "fixed 50 / 10 s, random Retry-After 0-60 | 4");

    /** A random header's cells still keep every promise but efficiency, and on four workers it is never held truthful. */
    @Test
    void theRandomHeaderLosesNothingRefusesLittleAndOnFourWorkersIsNeverHeldTruthful() {
        List<LimiterBenchmark.Row> random = agentRows().stream().filter(r -> KNOWN_MISSES.contains(r.shape().name() + " | " + r.threads())).toList();
        assertEquals(2, random.size());
        assertAll(random.stream().map(r -> () -> {
            assertEquals(0, r.lostNotHeld(), r.threads() + " workers: records lost");
            assertTrue(r.refusedAfterFirstPeriod() <= 0.01, r.threads() + " workers: " + r.refusedAfterFirstPeriod() + " refused");
            if (r.threads() > 1) {
                assertEquals(0, r.mostAnsweredTruthful().refusalsAnsweredTruthful(), r.threads() + " workers: held truthful");
            }
        }));
    }

    @Test
    void everyCellButTheKnownMissesMeetsItsTargets() {
        assertAll(agentRows().stream().filter(r -> !KNOWN_MISSES.contains(r.shape().name() + " | " + r.threads()))
                .map(r -> () -> assertEquals(List.of(), r.misses(LimiterBenchmark.baselineOf(r, rows)),
                        r.shape() + ", " + r.threads() + " workers")));
    }

    @Test
    void everyCellHasARow() {
        assertEquals(settings.shapes().size() * settings.threads().size() * LimiterBenchmark.CONTENDERS.size(), rows.size());
    }

    private static List<LimiterBenchmark.Row> agentRows() {
        return rows.stream().filter(LimiterBenchmark.Row::isAgent).toList();
    }
}
