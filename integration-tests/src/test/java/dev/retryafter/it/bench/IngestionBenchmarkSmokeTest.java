package dev.retryafter.it.bench;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Asserts that the benchmark's smoke run yields sane figures: the agent safe and complete, every number in range. */
@Timeout(value = 300, unit = TimeUnit.SECONDS) // virtual time: only a hang gets near this
class IngestionBenchmarkSmokeTest {

    private static Settings settings;
    private static Report report;

    @BeforeAll
    @Timeout(value = 300, unit = TimeUnit.SECONDS) // virtual time: only a hang gets near this
    static void runTheSmokeBenchmark() {
        settings = Settings.smoke();
        report = IngestionBenchmark.run(settings);
    }

    /**
     * With the default five attempts, a record can be given up in the first, unpaced window, before
     * anything is learned; never later, and never more than by any other strategy.
     */
    @Test
    void theAgentLosesNoRecordAfterTheFirstWindowAndNoMoreThanAnyOtherStrategy() {
        assertAll(agentCells().stream().map(r -> () -> {
            assertTrue(!r.stalled() && r.lost() <= 1, AgentTargets.row(r) + " lost " + r.lost() + (r.stalled() ? ", stalled" : ""));
            report.results().stream()
                    .filter(other -> other.scenario().equals(r.scenario()) && other.threads() == r.threads() && !other.isAgent())
                    .forEach(other -> assertTrue(r.lost() <= other.lost() || other.stalled(),
                            AgentTargets.row(r) + ": agent lost " + r.lost() + ", " + other.strategy() + " " + other.lost()));
        }));
    }

    @Test
    void theAgentNeverFollowsARefusalSoonerThanMinSleep() {
        assertAll(agentCells().stream().map(r -> () -> {
            long gap = r.portal().shortestGapAfterOwnRefusalMillis;
            assertTrue(gap >= 1_000, AgentTargets.row(r) + ": a worker came back " + gap + " ms after its refusal");
        }));
    }

    @Test
    void theAgentNeverSleepsLongerThanMaxSleepInOneGo() {
        assertAll(agentCells().stream().map(r -> () -> assertTrue(r.learned().longestDecidedWaitMillis() <= 300_000,
                AgentTargets.row(r) + ": slept " + r.learned().longestDecidedWaitMillis() + " ms")));
    }

    /**
     * Above zero everywhere. At most 1.1 for a run that fetched every record, which can beat
     * {@code records / limit} only by the part window at its end. A run that gave records up stops
     * early, so its rate may read higher; it still cannot fetch more than the windows it spanned admit.
     */
    @Test
    void everyEfficiencyIsInRange() {
        assertAll(report.results().stream().map(r -> () -> {
            String cell = AgentTargets.row(r) + ", " + r.strategy() + ": efficiency " + r.efficiency();
            assertTrue(r.efficiency() > 0, cell);
            if (r.isComplete()) {
                assertTrue(r.efficiency() <= 1.1, cell);
            } else {
                long windows = r.elapsedMillis() / Scenario.WINDOW_MILLIS + 1;
                assertTrue(r.fetched() <= windows * r.scenario().limitPerWindow(), cell + ", fetched " + r.fetched());
            }
        }));
    }

    @Test
    void theTableHasOneRowPerCell() {
        String markdown = report.markdown();
        int start = markdown.indexOf(Report.RESULTS_HEADER);
        assertTrue(start >= 0, "no results table");
        List<String> rows = markdown.substring(start).lines().skip(2).takeWhile(line -> line.startsWith("|")).toList();
        assertEquals(settings.cellCount(), rows.size());
        assertEquals(settings.scenarios().size() * settings.threads().size() * Contender.ALL.size(), report.results().size());
    }

    private static List<CellResult> agentCells() {
        List<CellResult> agent = report.results().stream().filter(CellResult::isAgent).toList();
        assertEquals(settings.scenarios().size() * settings.threads().size(), agent.size());
        return agent;
    }
}
