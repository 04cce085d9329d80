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
 * in rounds. Each round runs every cell's arms back to back, so drift on the machine (other
 * processes, thermal limits) falls on them alike: without the agent first in odd rounds, last in
 * even ones, as a run's place in the sequence was seen to matter as much as the agent (one agent
 * jar read 101.5% of the run without it when run second of three, 94.1% when third). Each figure is then
 * taken pair by pair, and the median over the rounds reported.
 */
final class HappyPath {

    /** Both arms: the same fixed heap, so heap sizing is not a difference between them. */
    static final List<String> JVM_ARGS = List.of("-Xms256m", "-Xmx256m");

    private HappyPath() {
    }

    /**
     * One child JVM's measured window, and how long its warm-up took. {@code agentCounted} is -1 without
     * the agent; {@code shared}, with the fleet store, that it said so at start and warned of nothing.
     */
    record Run(long warmUpMillis, long requests, long nanos, long cpuNanos, long total, long agentCounted, boolean shared) {

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
            load(settings, snapshot, server, settings.loadClients().get(0), maxThreads, null);
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
                for (Arm arm : arms) {
                    arm.runs().add(load(settings, snapshot, server, cell.client(), cell.threads(), arm.agentArgument()));
                }
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

    /** One arm of a cell: the agent's argument (null for none) and where its runs go. */
    private record Arm(String agentArgument, List<Run> runs) {
    }

    private static Run last(List<Run> runs) {
        return runs.get(runs.size() - 1);
    }

    /** {@code agentArgument}: null for the run without the agent. */
    private static Run load(CostSettings settings, Snapshot snapshot, URI server, String client, int threads,
                            String agentArgument) throws IOException, InterruptedException {
        ChildJvm jvm = ClientChild.jvm(snapshot, settings.loadJdk(), client);
        JVM_ARGS.forEach(jvm::jvmArg);
        boolean agent = agentArgument != null;
        if (agent) {
            jvm.jvmArg(snapshot.javaagent(agentArgument));
        }
        long seconds = (long) Math.ceil(settings.mostWarmUpSeconds() + settings.measureSeconds());
        ChildJvm.Result child = jvm.timeout(Duration.ofSeconds(seconds + 60))
                .main(HappyPathLoad.class.getName(), client, server.toString(), Double.toString(settings.leastWarmUpSeconds()),
                        Double.toString(settings.mostWarmUpSeconds()), Double.toString(settings.measureSeconds()),
                        Integer.toString(threads))
                .run();
        ResultLine result = ResultLine.first(child, HappyPathLoad.RESULT);
        return new Run(result.number("warmUpMillis"), result.number("requests"), result.number("nanos"), result.number("cpuNanos"), result.number("total"),
                agent ? ClientChild.agentCounted(child, server) : -1,
                child.stderr.contains("knowledge in redis://") && !child.stderr.contains("WARN retry-after-agent"));
    }
}
