package dev.retryafter.it.cost;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The agent's cost targets, each judged from the figures measured. A target with rows not measured cannot pass. */
final class CostTargets {

    static final String THROUGHPUT = "Happy path: the agent keeps at least 98% of the throughput";
    static final String START_UP = "Start-up: under 300 ms added from JVM start to the first response";
    static final String HEAP_PER_HOST = "Memory: under 2 KiB of heap per tracked host";
    static final String NO_GROWTH = "Memory: no heap growth over a long run on one host";
    static final String FLEET_THROUGHPUT = "Happy path with the fleet store (`store = redis://...`): at least 98% of the throughput";
    static final List<String> NAMES = List.of(THROUGHPUT, START_UP, HEAP_PER_HOST, NO_GROWTH, FLEET_THROUGHPUT);

    static final double MIN_THROUGHPUT_RATIO = 0.98;
    static final double MAX_ADDED_START_UP_MILLIS = 300;
    static final double MAX_BYTES_PER_HOST = 2048;
    /**
     * Full collections on the serial collector leave the same heap to within a few hundred bytes
     * run after run; a leak of one 16-byte object per refusal, over a million requests with one in
     * a hundred refused, would leave 160 KB.
     */
    static final long GROWTH_TOLERANCE_BYTES = 64 * 1024;

    enum Status { PASS, FAIL, NOT_MEASURED }

    /** {@code misses}: each row that missed, or was not measured, with its figure. */
    record Target(String name, Status status, String figure, List<String> misses) {
    }

    private CostTargets() {
    }

    static List<Target> check(CostSettings settings, List<HappyPath.Cell> happy, List<StartUp.Cell> startUp,
                              EngineCost.Result engine) {
        return List.of(throughput(happy), startUp(startUp), heapPerHost(settings, engine), noGrowth(engine), fleetThroughput(happy));
    }

    /** The fleet store's cell: its median ratio against the runs without the agent, each run shared throughout. */
    private static Target fleetThroughput(List<HappyPath.Cell> cells) {
        HappyPath.Cell cell = cells.stream().filter(HappyPath.Cell::fleetMeasured).findFirst().orElse(null);
        if (cell == null) {
            return new Target(FLEET_THROUGHPUT, Status.NOT_MEASURED, "nothing measured", List.of("no redis-server, or its JDK missing"));
        }
        List<String> misses = new ArrayList<>();
        double ratio = Stats.median(cell.fleetRatios());
        String row = cell.client() + ", " + threads(cell.threads());
        boolean missed = ratio < MIN_THROUGHPUT_RATIO;
        if (missed) {
            misses.add(ratioMiss(row, cell.fleetRatios()));
        }
        long unshared = cell.withFleet().stream().filter(run -> !run.shared() || !run.governedAll()).count();
        if (unshared > 0) {
            missed = true;
            misses.add(row + ": in " + unshared + " of " + cell.withFleet().size()
                    + " runs the agent did not govern every request on the fleet store, so they do not measure its cost");
        }
        String figure = String.format(Locale.ROOT, "%s, median %.1f%% of the throughput without the agent; against the agent "
                        + "in memory, %.1f%%", row, 100 * ratio, 100 * Stats.median(cell.fleetAgainstMemory()));
        return new Target(FLEET_THROUGHPUT, missed ? Status.FAIL : Status.PASS, figure, misses);
    }

    private static Target throughput(List<HappyPath.Cell> cells) {
        List<String> misses = new ArrayList<>();
        boolean missed = false;
        boolean unmeasured = false;
        HappyPath.Cell worst = null;
        for (HappyPath.Cell cell : cells) {
            String row = cell.client() + ", " + threads(cell.threads());
            if (!cell.measured()) {
                unmeasured = true;
                misses.add(row + ": not measured, JDK missing");
                continue;
            }
            double ratio = Stats.median(cell.ratios());
            if (worst == null || ratio < Stats.median(worst.ratios())) {
                worst = cell;
            }
            if (ratio < MIN_THROUGHPUT_RATIO) {
                missed = true;
                misses.add(ratioMiss(row, cell.ratios()));
            }
            long ungoverned = cell.with().stream().filter(run -> !run.governedAll()).count();
            if (ungoverned > 0) {
                missed = true;
                misses.add(row + ": in " + ungoverned + " of " + cell.with().size()
                        + " runs the agent did not count every request, so they do not measure its cost");
            }
        }
        List<Double> everyRound = cells.stream().flatMap(cell -> cell.ratios().stream()).toList();
        String figure = worst == null ? "nothing measured" : String.format(Locale.ROOT,
                "lowest median ratio %.1f%% (%s, %s); every round of every cell together, median %.1f%%",
                100 * Stats.median(worst.ratios()), worst.client(), threads(worst.threads()), 100 * Stats.median(everyRound));
        return new Target(THROUGHPUT, status(missed, unmeasured, worst != null), figure, misses);
    }

    private static Target startUp(List<StartUp.Cell> cells) {
        List<String> misses = new ArrayList<>();
        boolean missed = false;
        boolean unmeasured = false;
        StartUp.Cell worst = null;
        for (StartUp.Cell cell : cells) {
            String row = cell.client() + " on " + cell.jdk();
            if (!cell.measured()) {
                unmeasured = true;
                misses.add(row + ": not measured, JDK missing");
                continue;
            }
            double added = cell.added(StartUp.Run::toFirstResponseMillis);
            if (worst == null || added > worst.added(StartUp.Run::toFirstResponseMillis)) {
                worst = cell;
            }
            if (added >= MAX_ADDED_START_UP_MILLIS) {
                missed = true;
                misses.add(String.format(Locale.ROOT, "%s: +%.0f ms (%.0f without, %.0f with; JVM start to main +%.0f ms)", row,
                        added, cell.median(cell.without(), StartUp.Run::toFirstResponseMillis),
                        cell.median(cell.with(), StartUp.Run::toFirstResponseMillis), cell.added(StartUp.Run::toMainMillis)));
            }
        }
        double firstStart = cells.stream().filter(StartUp.Cell::measured)
                .mapToDouble(cell -> cell.added(cell.first(), StartUp.Run::toFirstResponseMillis)).max().orElse(Double.NaN);
        String figure = worst == null ? "nothing measured" : String.format(Locale.ROOT,
                "most added +%.0f ms (%s on %s), median against median, the class cache filled by an earlier start; "
                        + "at a first start, the cache empty, most added +%.0f ms", worst.added(StartUp.Run::toFirstResponseMillis),
                worst.client(), worst.jdk(), firstStart);
        return new Target(START_UP, status(missed, unmeasured, worst != null), figure, misses);
    }

    private static Target heapPerHost(CostSettings settings, EngineCost.Result engine) {
        if (!engine.measured()) {
            return new Target(HEAP_PER_HOST, Status.NOT_MEASURED, "nothing measured", List.of(engine.jdk() + " missing"));
        }
        EngineCost.Population mixed = engine.population("mixed");
        EngineCost.Population busy = engine.population("busy");
        boolean missed = mixed.bytesPerHost() >= MAX_BYTES_PER_HOST;
        String figure = String.format(Locale.ROOT, "%,.0f bytes a host (%,d hosts, one request each, one in %d refused once); "
                        + "not the target's measure, but a busy host, its histories full after %d requests, keeps %,.0f bytes",
                mixed.bytesPerHost(), mixed.hosts(), settings.refusedEvery(), busy.requestsPerHost(), busy.bytesPerHost());
        return new Target(HEAP_PER_HOST, missed ? Status.FAIL : Status.PASS, figure, List.of());
    }

    private static Target noGrowth(EngineCost.Result engine) {
        if (!engine.measured()) {
            return new Target(NO_GROWTH, Status.NOT_MEASURED, "nothing measured", List.of(engine.jdk() + " missing"));
        }
        long growth = engine.growthBytes();
        List<EngineCost.Checkpoint> checkpoints = engine.checkpoints();
        String figure = String.format(Locale.ROOT, "%+,d bytes from %,d to %,d requests (tolerance %,d bytes)", growth,
                checkpoints.get(1).calls(), checkpoints.get(checkpoints.size() - 1).calls(), GROWTH_TOLERANCE_BYTES);
        return new Target(NO_GROWTH, growth > GROWTH_TOLERANCE_BYTES ? Status.FAIL : Status.PASS, figure, List.of());
    }

    /** A cell's median ratio under the target, with its rounds' range, and whether some round met it. */
    private static String ratioMiss(String row, List<Double> ratios) {
        double highest = Stats.max(ratios);
        return String.format(Locale.ROOT, "%s: %.1f%% (rounds from %.1f%% to %.1f%%)%s", row, 100 * Stats.median(ratios),
                100 * Stats.min(ratios), 100 * highest, highest >= MIN_THROUGHPUT_RATIO
                        ? "; some rounds met it: the spread between runs is wider than the margin, so this run "
                        + "cannot tell the agent's cost from noise" : "");
    }

    /** A miss fails the target; otherwise a row not measured leaves it unjudged. */
    private static Status status(boolean missed, boolean unmeasured, boolean anyMeasured) {
        if (missed) {
            return Status.FAIL;
        }
        return unmeasured || !anyMeasured ? Status.NOT_MEASURED : Status.PASS;
    }

    static String threads(int threads) {
        return threads == 1 ? "1 thread" : threads + " threads";
    }
}
