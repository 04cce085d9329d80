package dev.retryafter.it.cost;

import java.io.IOException;
import java.util.List;
import java.util.Locale;

/**
 * One happy-path cell of the cost benchmark on its own, for comparing a change by hand: the same
 * child JVMs, warm-up, slices and turns as the full run, for one client at one thread count, and
 * each round's figures printed as it ends. The agent jar is the build's, or the one the system
 * property {@code agent.jar} names (a copy kept from before a change, say).
 *
 * <p>Arguments: client ({@code jdk} or {@code apache5}), threads, rounds (default 6).
 */
public final class HappyPathCell {

    private HappyPathCell() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length < 2) {
            throw new IllegalArgumentException("expected: client threads [rounds]");
        }
        String client = args[0];
        int threads = Integer.parseInt(args[1]);
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 6;
        CostBenchmark.defaultHarnessProperties();
        CostSettings one = CostSettings.cell(client, threads, rounds);
        Snapshot snapshot = Snapshot.take();
        HappyPath.Cell cell;
        try (ServerJvm server = ServerJvm.start(snapshot)) {
            HappyPath.warmUpServer(one, snapshot, server.url());
            cell = HappyPath.run(one, snapshot, server.url(), null).get(0);
        }
        List<Double> ratios = cell.ratios();
        List<Double> cpuWithout = cell.cpuMicros(cell.without());
        List<Double> cpuWith = cell.cpuMicros(cell.with());
        for (int i = 0; i < ratios.size(); i++) {
            System.out.printf(Locale.ROOT, "round %d: %.1f%%  CPU a request %.2f -> %.2f us (%+.2f)%n", i + 1,
                    100 * ratios.get(i), cpuWithout.get(i), cpuWith.get(i), cpuWith.get(i) - cpuWithout.get(i));
        }
        System.out.printf(Locale.ROOT, "%s, %d thread(s), %s: median %.1f%% (%.1f to %.1f), CPU a request %+.2f us (median)%n",
                client, threads, snapshot.agentSource(), 100 * Stats.median(ratios), 100 * Stats.min(ratios), 100 * Stats.max(ratios),
                Stats.median(cell.addedCpuMicros()));
    }
}
