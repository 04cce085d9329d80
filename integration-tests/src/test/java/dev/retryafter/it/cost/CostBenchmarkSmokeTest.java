package dev.retryafter.it.cost;

import dev.retryafter.it.harness.Jdk;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Asserts that the cost benchmark's smoke run measures every part, with the agent really governing
 * the runs said to be with it, and yields figures in a sane range; not that the targets are met,
 * which a smoke run on a busy machine cannot tell.
 */
class CostBenchmarkSmokeTest {

    private static CostSettings settings;
    private static CostReport report;

    @BeforeAll
    @Timeout(value = 900, unit = TimeUnit.SECONDS) // a hang, not slowness: CI runs it beside other tests on two cores, on five JDKs
    static void runTheSmokeBenchmark() throws Exception {
        CostBenchmark.defaultHarnessProperties();
        settings = CostSettings.smoke();
        report = CostBenchmark.run(settings);
    }

    @Test
    void everyHappyPathRunMovesRequestsInBothArms() {
        assertEquals(settings.loadClients().size() * settings.threads().size(), report.happy().size());
        assertAll(report.happy().stream().map(cell -> () -> {
            String row = cell.client() + ", " + CostTargets.threads(cell.threads());
            assertTrue(cell.measured(), row + " was not measured");
            assertEquals(settings.rounds(), cell.with().size(), row);
            cell.without().forEach(run -> assertTrue(run.perSecond() > 0, row + " without: " + run));
            cell.with().forEach(run -> assertTrue(run.perSecond() > 0, row + " with: " + run));
            // No bound on the ratio: sub-second windows beside other test JVMs on two cores can read anything.
            // The full run judges it; here, both arms moved requests and the agent governed them.
            cell.ratios().forEach(ratio -> assertTrue(ratio > 0 && Double.isFinite(ratio), row + ": with / without " + ratio));
        }));
    }

    @Test
    void everyRunWithTheAgentIsGovernedByIt() {
        assertAll(report.happy().stream().flatMap(cell -> cell.with().stream().map(run -> () ->
                assertTrue(run.governedAll(), cell.client() + ", " + cell.threads() + " threads: the agent counted "
                        + run.agentCounted() + " of " + run.total() + " requests"))));
        assertAll(report.startUp().stream().flatMap(cell -> cell.with().stream().map(run -> () ->
                assertEquals(1, run.agentCounted(), cell.client() + " on " + cell.jdk() + ": requests the agent counted"))));
    }

    @Test
    void startUpIsMeasuredOnEveryInstalledJdk() {
        assertEquals(settings.startUpJdks().stream().mapToInt(jdk -> StartUp.clientsOn(settings, jdk).size()).sum(),
                report.startUp().size());
        assertAll(report.startUp().stream().map(cell -> () -> {
            String row = cell.client() + " on " + cell.jdk();
            assertEquals(cell.jdk().isAvailable(), cell.measured(), row + " measured");
            for (StartUp.Run run : Stream.of(cell.without(), cell.with(), cell.off()).flatMap(List::stream).toList()) {
                assertTrue(run.toMainMillis() >= 0 && run.toMainMillis() <= run.toFirstResponseMillis(), row + ": " + run);
                // That it ran, not how fast: a smoke run beside other tests on two cores can take any time.
                assertTrue(run.toFirstResponseMillis() > 0, row + ": " + run);
                assertTrue(run.wallMillis() > 0, row + ": " + run);
            }
        }));
        // A JDK that is missing had its rows marked; the test then says so by being skipped, loudly.
        Jdk.all().forEach(Jdk::javaOrSkip);
    }

    /** Only that it ran, with the agent there and off: what off costs is for the full run to say. */
    @Test
    void startUpWithTheAgentSwitchedOffRanBesideTheOthers() {
        assertAll(report.startUp().stream().filter(StartUp.Cell::measured).map(cell -> () -> {
            String row = cell.client() + " on " + cell.jdk();
            assertEquals(settings.startUpRuns(), cell.off().size(), row);
            cell.off().forEach(run -> assertTrue(run.saidOff(), row + ": the agent said it was off: " + run));
        }));
    }

    @Test
    void everyPopulationCostsSomethingAndUnderSixteenKiBAHost() {
        assertTrue(report.engine().measured(), "memory was not measured");
        assertEquals(List.of("admitted", "refused", "mixed", "busy"),
                report.engine().populations().stream().map(EngineCost.Population::name).toList());
        assertAll(report.engine().populations().stream().map(p -> () ->
                assertTrue(p.bytesPerHost() > 0 && p.bytesPerHost() < 16 * 1024, p.toString())));
    }

    @Test
    void theLongRunHasEveryCheckpoint() {
        List<EngineCost.Checkpoint> checkpoints = report.engine().checkpoints();
        assertEquals(settings.checkpoints() + 1, checkpoints.size());
        assertEquals(settings.longRunCalls(), checkpoints.get(checkpoints.size() - 1).calls());
        assertAll(checkpoints.stream().map(c -> () -> assertTrue(c.usedBytes() > 0, c.toString())));
    }

    /** Only that it ran: how long a save takes is for the full run to say. */
    @Test
    void theStateFileIsWrittenAndReadBackWhole() {
        StateFileCost.Result state = report.stateFile();
        assertEquals(settings.stateHosts(), state.hosts());
        assertTrue(state.bytes() > 0, "the file written is empty");
        assertEquals(state.hosts(), state.hostsReadBack(), "hosts read back from the file");
        assertEquals(state.hosts() / StateFileCost.HELD_EVERY, state.held());
        assertAll(Stream.of(state.saveFresh(), state.save(), state.read()).map(step -> () -> {
            assertEquals(settings.stateRuns(), step.millis().size(), step.toString());
            assertEquals(settings.stateRuns(), step.cpuMillis().size(), step.toString());
        }));
    }

    @Test
    void theAgentJarIsMeasured() {
        assertTrue(report.agentJarBytes() > 0);
        assertTrue(report.markdown().contains(String.format(Locale.ROOT, "%,d bytes", report.agentJarBytes())));
    }

    @Test
    void everyTargetIsReportedWithAVerdict() {
        String markdown = report.markdown();
        assertAll(CostTargets.NAMES.stream().map(name -> () -> assertTrue(
                markdown.contains("- **PASS** " + name) || markdown.contains("- **FAIL** " + name)
                        || markdown.contains("- **NOT MEASURED** " + name),
                "no verdict for " + name + " in\n" + markdown)));
    }

    /**
     * Where a redis-server is (always in CI: RedisServer fails there without one), the fleet store's arm ran on it.
     * Whether each run stayed shared throughout is the full run's verdict: beside other tests on two cores a call
     * can outlast the store's 50 ms timeout, and the agent rightly carries on with its own knowledge then.
     */
    @Test
    void theFleetStoresArmRanOnRedisWhereThereIsOne() {
        HappyPath.Cell cell = report.happy().stream()
                .filter(c -> c.client().equals(settings.fleetClient()) && c.threads() == settings.fleetThreads())
                .findFirst().orElseThrow();
        assumeTrue(!cell.withFleet().isEmpty(), "no redis-server: the fleet arm did not run");
        assertEquals(settings.rounds(), cell.withFleet().size());
        assertAll(cell.withFleet().stream().map(run -> () -> {
            assertTrue(run.onRedis(), "the agent said its knowledge was on Redis: " + run);
            assertTrue(run.governedAll(), "the agent counted every request: " + run);
            assertTrue(run.perSecond() > 0, run.toString());
        }));
        assertEquals(1, rowsUnder(report.markdown(), CostReport.FLEET_HEADER));
    }

    @Test
    void everyTableHasOneRowPerCell() {
        String markdown = report.markdown();
        assertEquals(report.happy().size(), rowsUnder(markdown, CostReport.HAPPY_HEADER));
        for (String arm : List.of("with", "first start", "off")) {
            assertEquals(report.startUp().size(), rowsUnder(markdown, String.format(Locale.ROOT, CostReport.START_UP_ARM_HEADER, arm)));
        }
        assertEquals(report.engine().populations().size(), rowsUnder(markdown, CostReport.POPULATION_HEADER));
        assertEquals(3, rowsUnder(markdown, CostReport.STATE_FILE_HEADER));
    }

    private static long rowsUnder(String markdown, String header) {
        int start = markdown.indexOf(header);
        assertTrue(start >= 0, "no table " + header);
        return markdown.substring(start).lines().skip(2).takeWhile(line -> line.startsWith("|")).count();
    }
}
