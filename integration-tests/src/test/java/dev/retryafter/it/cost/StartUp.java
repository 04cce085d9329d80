package dev.retryafter.it.cost;

import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * Start-up: a {@link FirstResponse} child JVM per JDK, client and arm, without and with the agent
 * in turn. The agent runs as it is deployed with no argument: defaults for every host.
 */
final class StartUp {

    private StartUp() {
    }

    /**
     * One run, in milliseconds: from the JVM's start to main and to the first response, both read
     * inside the child; and the child process from start to exit, as the parent saw it.
     * {@code agentCounted} is -1 without the agent.
     */
    record Run(long toMainMillis, long toFirstResponseMillis, long wallMillis, long classes, String version,
               long agentCounted) {
    }

    /** A client on a JDK: its runs in the order they ran. No runs: the JDK is missing. */
    record Cell(Jdk jdk, String client, List<Run> without, List<Run> with) {

        boolean measured() {
            return !without.isEmpty() && !with.isEmpty();
        }

        double median(List<Run> arm, ToDoubleFunction<Run> figure) {
            return Stats.median(arm.stream().map(figure::applyAsDouble).toList());
        }

        /** What the agent adds, median against median. */
        double added(ToDoubleFunction<Run> figure) {
            return median(with, figure) - median(without, figure);
        }

        String version() {
            return without.isEmpty() ? null : without.get(0).version();
        }
    }

    static List<Cell> run(CostSettings settings, Snapshot snapshot, URI server) throws IOException, InterruptedException {
        List<Cell> cells = new ArrayList<>();
        for (Jdk jdk : settings.startUpJdks()) {
            boolean available = jdk.isAvailable();
            if (!available) {
                CostBenchmark.loud(jdk + " NOT FOUND at " + jdk.java() + ": its start-up rows are marked JDK missing");
            }
            for (String client : clientsOn(settings, jdk)) {
                Cell cell = new Cell(jdk, client, new ArrayList<>(), new ArrayList<>());
                cells.add(cell);
                if (available) {
                    measure(settings, snapshot, server, cell);
                }
            }
        }
        return cells;
    }

    /**
     * The chosen clients that run on {@code jdk}; Apache 4 where none does (Java 8, when only
     * java.net.http is chosen), so that every JDK has its start-up row.
     */
    static List<String> clientsOn(CostSettings settings, Jdk jdk) {
        List<String> clients = settings.startUpClients().stream()
                .filter(client -> LoopbackClient.runsOn(client, jdk.feature())).toList();
        return clients.isEmpty() ? List.of(LoopbackClient.APACHE4) : clients;
    }

    private static void measure(CostSettings settings, Snapshot snapshot, URI server, Cell cell)
            throws IOException, InterruptedException {
        for (int i = 0; i < settings.startUpWarmUps(); i++) {
            firstResponse(snapshot, server, cell, false);
            firstResponse(snapshot, server, cell, true);
        }
        for (int i = 0; i < settings.startUpRuns(); i++) {
            cell.without().add(firstResponse(snapshot, server, cell, false));
            cell.with().add(firstResponse(snapshot, server, cell, true));
        }
        CostBenchmark.progress(String.format(Locale.ROOT, "start-up, %s on %s: %.0f ms to the first response without, %.0f with",
                cell.client(), cell.jdk(), cell.median(cell.without(), Run::toFirstResponseMillis),
                cell.median(cell.with(), Run::toFirstResponseMillis)));
    }

    private static Run firstResponse(Snapshot snapshot, URI server, Cell cell, boolean agent)
            throws IOException, InterruptedException {
        ChildJvm jvm = ClientChild.jvm(snapshot, cell.jdk(), cell.client());
        if (agent) {
            jvm.jvmArg(snapshot.javaagent(null));
        }
        jvm.main(FirstResponse.class.getName(), cell.client(), server.toString());
        long started = System.nanoTime();
        ChildJvm.Result child = jvm.run();
        long wallMillis = (System.nanoTime() - started) / 1_000_000;
        ResultLine result = ResultLine.first(child, FirstResponse.RESULT);
        if (result.number("status") != 200) {
            throw new AssertionError("the first response was not 200:\n" + child);
        }
        long jvmStart = result.number("jvmStart");
        return new Run(result.number("mainEntered") - jvmStart, result.number("firstResponse") - jvmStart, wallMillis,
                result.number("classes"), result.text("version"), agent ? ClientChild.agentCounted(child, server) : -1);
    }
}
