package dev.retryafter.it.cost;

import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleBinaryOperator;
import java.util.function.ToDoubleFunction;
import java.util.stream.IntStream;

/**
 * Throughput on the happy path: a {@link HappyPathLoad} child JVM per client, thread count and arm,
 * in rounds. In each round, a cell's arms start one after another and warm up alone; then they
 * take turns, one measured slice each, the order reversed from one lap to the next (without, with,
 * with, without, ...), and each arm's figure is its slices' sum. Whole runs one after another
 * read the machine at different moments: on this two-processor machine the same JVM read from
 * 4,600 to 16,000 requests a second within minutes, and a run's place in the sequence was seen to
 * matter as much as the agent (one agent jar read 101.5% of the run without it when run second of
 * three, 94.1% when third). Slices a quarter of a second long put each arm on the machine as it
 * is in that moment. The ratio is taken round by round, and the median over the rounds reported; a new JVM
 * each round samples what differs from one JVM to the next (its JIT's choices, where its threads run).
 */
final class HappyPath {

    /** Both arms: the same fixed heap, so heap sizing is not a difference between them. */
    static final List<String> JVM_ARGS = List.of("-Xms256m", "-Xmx256m");

    /** Unmeasured laps in a row with every JIT quiet, before the measured ones. */
    static final int QUIET_LAPS = 3;

    private HappyPath() {
    }

    /**
     * One child JVM's measured slices, summed, and how long its warm-up took. {@code agentCounted} is -1 without
     * the agent; with the fleet store, {@code onRedis} that it said so at start, {@code shared} that it also warned
     * of nothing (a call slower than the store's timeout, on a busy machine, is a warning and a run of its own knowledge).
     */
    record Run(long warmUpMillis, long requests, long nanos, long cpuNanos, long total, long agentCounted, boolean onRedis,
               boolean shared) {

        double perSecond() {
            return requests * 1e9 / nanos;
        }

        double cpuMicrosPerRequest() {
            return cpuNanos / 1000.0 / requests;
        }

        /** The agent counted every request the client made, warm-up included: it was attached and governed them all. */
        boolean governedAll() {
            return agentCounted == total;
        }
    }

    /**
     * A client at a thread count: its runs in round order, the i-th of each arm run back to back. No
     * runs: the JDK is missing. {@code withFleet}, for the one cell that has it, runs just after {@code with}.
     */
    record Cell(String client, int threads, List<Run> without, List<Run> with, List<Run> withFleet) {

        boolean measured() {
            return !without.isEmpty() && without.size() == with.size();
        }

        boolean fleetMeasured() {
            return !withFleet.isEmpty() && withFleet.size() == without.size();
        }

        /** Throughput with over without, round by round. */
        List<Double> ratios() {
            return pairs(with, Run::perSecond, (with, without) -> with / without);
        }

        /** Throughput with the fleet store over without, round by round. */
        List<Double> fleetRatios() {
            return pairs(withFleet, Run::perSecond, (with, without) -> with / without);
        }

        /** Throughput with the fleet store over the agent in memory, round by round. */
        List<Double> fleetAgainstMemory() {
            return IntStream.range(0, Math.min(with.size(), withFleet.size()))
                    .mapToObj(i -> withFleet.get(i).perSecond() / with.get(i).perSecond()).toList();
        }

        /**
         * The time each request took longer with the agent, round by round: a thread's time per request
         * is threads / throughput.
         */
        List<Double> addedMicros() {
            return pairs(with, run -> threads * 1e6 / run.perSecond(), (with, without) -> with - without);
        }

        /** The processor time each request took more with the agent (the whole JVM's), round by round. */
        List<Double> addedCpuMicros() {
            return pairs(with, Run::cpuMicrosPerRequest, (with, without) -> with - without);
        }

        List<Double> perSecond(List<Run> arm) {
            return arm.stream().map(Run::perSecond).toList();
        }

        List<Double> cpuMicros(List<Run> arm) {
            return arm.stream().map(Run::cpuMicrosPerRequest).toList();
        }

        private List<Double> pairs(List<Run> arm, ToDoubleFunction<Run> figure, DoubleBinaryOperator againstWithout) {
            return IntStream.range(0, Math.min(without.size(), arm.size()))
                    .mapToObj(i -> againstWithout.applyAsDouble(figure.applyAsDouble(arm.get(i)),
                            figure.applyAsDouble(without.get(i))))
                    .toList();
        }
    }

    /**
     * One unmeasured run at the most threads, before anything is measured: the server's JIT warms on
     * it, not on the first start-up runs or the first round.
     */
    static void warmUpServer(CostSettings settings, Snapshot snapshot, URI server) throws IOException, InterruptedException {
        if (settings.loadJdk().isAvailable()) {
            int maxThreads = settings.threads().stream().mapToInt(Integer::intValue).max().orElse(1);
            Cell unmeasured = new Cell(settings.loadClients().get(0), maxThreads, new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
            inTurns(settings, snapshot, server, unmeasured, List.of(new Arm(null, unmeasured.without())));
        }
    }

    /**
     * Every round. On a missing JDK, a loud line and cells without runs. {@code fleetStore}, a Redis
     * address or null for none, adds the fleet store's arm to the cell the settings name.
     */
    static List<Cell> run(CostSettings settings, Snapshot snapshot, URI server, String fleetStore)
            throws IOException, InterruptedException {
        List<Cell> cells = new ArrayList<>();
        for (String client : settings.loadClients()) {
            for (int threads : settings.threads()) {
                cells.add(new Cell(client, threads, new ArrayList<>(), new ArrayList<>(), new ArrayList<>()));
            }
        }
        Jdk jdk = settings.loadJdk();
        if (!jdk.isAvailable()) {
            CostBenchmark.loud(jdk + " NOT FOUND at " + jdk.java() + ": the happy-path rows are marked JDK missing");
            return cells;
        }
        for (int round = 1; round <= settings.rounds(); round++) {
            for (Cell cell : cells) {
                List<Arm> arms = new ArrayList<>();
                arms.add(new Arm(null, cell.without()));
                arms.add(new Arm(CostSettings.LOAD_AGENT_ARGUMENT, cell.with()));
                if (fleetStore != null && cell.client().equals(settings.fleetClient()) && cell.threads() == settings.fleetThreads()) {
                    arms.add(new Arm(CostSettings.fleetAgentArgument(fleetStore), cell.withFleet()));
                }
                if (round % 2 == 0) {
                    Collections.reverse(arms);
                }
                inTurns(settings, snapshot, server, cell, arms);
                Run without = last(cell.without());
                Run with = last(cell.with());
                String fleet = cell.withFleet().isEmpty() ? ""
                        : String.format(Locale.ROOT, ", %.0f with the fleet store", last(cell.withFleet()).perSecond());
                CostBenchmark.progress(String.format(Locale.ROOT, "happy path, round %d of %d: %s, %d thread(s): %.0f req/s without, %.0f with%s",
                        round, settings.rounds(), cell.client(), cell.threads(), without.perSecond(), with.perSecond(), fleet));
            }
        }
        return cells;
    }

    /**
     * One round of a cell: each arm's JVM started and warmed in turn (the others at rest), laps of
     * slices unmeasured until every JIT is quiet ({@link #settle}), then the measured laps, and each
     * arm's run added to its list.
     */
    private static void inTurns(CostSettings settings, Snapshot snapshot, URI server, Cell cell, List<Arm> arms)
            throws IOException, InterruptedException {
        List<ChildJvm.Running> children = new ArrayList<>();
        try {
            List<Long> warmUps = new ArrayList<>();
            for (Arm arm : arms) {
                ChildJvm.Running child = start(settings, snapshot, server, cell.client(), cell.threads(), arm.agentArgument());
                children.add(child);
                String ready = child.awaitLine(HappyPathLoad.READY + " ", Duration.ofSeconds((long) settings.mostWarmUpSeconds() + 60));
                warmUps.add(ResultLine.of(ready).number("warmUpMillis"));
            }
            int asked = settle(settings, children);
            long[][] sums = new long[arms.size()][3]; // requests, nanos, CPU nanos
            for (int lap = 0; lap < settings.slices(); lap++) {
                asked++;
                for (int k = 0; k < arms.size(); k++) {
                    int i = lap % 2 == 0 ? k : arms.size() - 1 - k;
                    ResultLine slice = slice(children.get(i), asked);
                    sums[i][0] += slice.number("requests");
                    sums[i][1] += slice.number("nanos");
                    sums[i][2] += slice.number("cpuNanos");
                }
            }
            for (int i = 0; i < arms.size(); i++) {
                ChildJvm.Running child = children.get(i);
                child.send(HappyPathLoad.QUIT);
                ChildJvm.Result result = child.finish();
                long total = ResultLine.first(result, HappyPathLoad.RESULT).number("total");
                boolean agent = arms.get(i).agentArgument() != null;
                boolean onRedis = result.stderr.contains("knowledge in redis://");
                boolean shared = onRedis && !result.stderr.contains("WARN retry-after-agent");
                if (!shared && result.stderr.contains("redis://")) {
                    System.out.println("a fleet store's run was not shared throughout; its agent said:\n" + result.stderr);
                }
                arms.get(i).runs().add(new Run(warmUps.get(i), sums[i][0], sums[i][1], sums[i][2], total,
                        agent ? ClientChild.agentCounted(result, server) : -1, onRedis, shared));
            }
        } finally {
            children.forEach(child -> child.process.destroyForcibly());
        }
    }

    /**
     * Unmeasured laps until, in {@value #QUIET_LAPS} laps running, no arm's JIT compiled more than
     * {@value HappyPathLoad#JIT_QUIET_BUDGET_MILLIS} ms in a slice, or {@code mostWarmUpSeconds} of
     * laps have passed. An arm's own warm-up judged its JIT quiet over a second, yet a JVM that rested
     * through the others' warm-ups was seen to compile for over a second of its next few slices,
     * at a quarter of its later speed. Returns the slices each arm has been asked for.
     */
    private static int settle(CostSettings settings, List<ChildJvm.Running> children) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + (long) (settings.mostWarmUpSeconds() * 1e9);
        int asked = 0;
        int quietLaps = 0;
        while (quietLaps < QUIET_LAPS && (asked == 0 || System.nanoTime() < deadline)) {
            asked++;
            boolean quiet = true;
            for (ChildJvm.Running child : children) {
                quiet &= slice(child, asked).number("jitMillis") <= HappyPathLoad.JIT_QUIET_BUDGET_MILLIS;
            }
            quietLaps = quiet ? quietLaps + 1 : 0;
        }
        return asked;
    }

    /** The child's {@code nth} slice, asked for and waited out. */
    private static ResultLine slice(ChildJvm.Running child, int nth) throws IOException, InterruptedException {
        child.send(HappyPathLoad.NEXT_SLICE);
        List<String> lines = child.awaitLines(HappyPathLoad.SLICE + " ", nth, Duration.ofSeconds(120));
        return ResultLine.of(lines.get(nth - 1));
    }

    /** One arm of a cell: the agent's argument (null for none) and where its runs go. */
    private record Arm(String agentArgument, List<Run> runs) {
    }

    private static Run last(List<Run> runs) {
        return runs.get(runs.size() - 1);
    }

    /** {@code agentArgument}: null for the run without the agent. */
    private static ChildJvm.Running start(CostSettings settings, Snapshot snapshot, URI server, String client, int threads,
                                          String agentArgument) throws IOException {
        ChildJvm jvm = ClientChild.jvm(snapshot, settings.loadJdk(), client);
        JVM_ARGS.forEach(jvm::jvmArg);
        if (agentArgument != null) {
            jvm.jvmArg(snapshot.javaagent(agentArgument));
        }
        return jvm.timeout(Duration.ofSeconds(60))
                .main(HappyPathLoad.class.getName(), client, server.toString(), Double.toString(settings.leastWarmUpSeconds()),
                        Double.toString(settings.mostWarmUpSeconds()), Double.toString(settings.sliceSeconds()),
                        Integer.toString(threads))
                .start();
    }
}
