package dev.retryafter.it.cost;

import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * Start-up: a {@link FirstResponse} child JVM per JDK, client and arm, in turn without the agent;
 * with it as it is deployed (defaults for every host) on a machine where it has started before, its
 * class cache filled by the unmeasured runs; with it switched off ({@value #OFF_ARGUMENT}), whose
 * cost should be no more than opening the jar; and its first start, with an empty class cache.
 */
final class StartUp {

    static final String OFF_ARGUMENT = "enabled=false";
    /** The line the agent prints when it is off: the check that the off arm ran the agent at all. */
    static final String OFF_LINE = "retry-after-agent - off (enabled=false";

    private StartUp() {
    }

    /**
     * One run, in milliseconds: from the JVM's start to main and to the first response, both read
     * inside the child; and the child process from start to exit, as the parent saw it.
     * {@code agentCounted} is -1 without the agent or with it off; {@code saidOff}, whether the agent said it was off.
     */
    record Run(long toMainMillis, long toFirstResponseMillis, long wallMillis, long classes, String version,
               long agentCounted, boolean saidOff) {
    }

    /** A client on a JDK: its runs in the order they ran, per arm. No runs: the JDK is missing. */
    record Cell(Jdk jdk, String client, List<Run> without, List<Run> with, List<Run> off, List<Run> first) {

        boolean measured() {
            return !without.isEmpty() && !with.isEmpty() && !off.isEmpty() && !first.isEmpty();
        }

        double median(List<Run> arm, ToDoubleFunction<Run> figure) {
            return Stats.median(arm.stream().map(figure::applyAsDouble).toList());
        }

        /** What the agent adds, median against median. */
        double added(ToDoubleFunction<Run> figure) {
            return median(with, figure) - median(without, figure);
        }

        /** What the agent adds in {@code arm} (off, or a first start), median against median. */
        double added(List<Run> arm, ToDoubleFunction<Run> figure) {
            return median(arm, figure) - median(without, figure);
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
                Cell cell = new Cell(jdk, client, new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
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
            for (Arm arm : Arm.values()) {
                firstResponse(snapshot, server, cell, arm);
            }
        }
        for (int i = 0; i < settings.startUpRuns(); i++) {
            cell.without().add(firstResponse(snapshot, server, cell, Arm.WITHOUT));
            cell.with().add(firstResponse(snapshot, server, cell, Arm.WITH));
            cell.off().add(firstResponse(snapshot, server, cell, Arm.OFF));
            cell.first().add(firstResponse(snapshot, server, cell, Arm.FIRST));
        }
        CostBenchmark.progress(String.format(Locale.ROOT, "start-up, %s on %s: %.0f ms to the first response without, %.0f with, "
                        + "%.0f off, %.0f at a first start; process %.0f ms without, %.0f off",
                cell.client(), cell.jdk(), cell.median(cell.without(), Run::toFirstResponseMillis),
                cell.median(cell.with(), Run::toFirstResponseMillis), cell.median(cell.off(), Run::toFirstResponseMillis),
                cell.median(cell.first(), Run::toFirstResponseMillis),
                cell.median(cell.without(), Run::wallMillis), cell.median(cell.off(), Run::wallMillis)));
    }

    private enum Arm {
        WITHOUT, WITH, OFF, FIRST
    }

    /**
     * The class cache of the runs "with": one per JDK and client, as on a machine where that
     * scraper has run before (a JDK's classes differ from another's, so sharing one would only add
     * entries). A first start gets a cache of its own, empty.
     */
    private static String classCache(Snapshot snapshot, Cell cell, Arm arm) throws IOException {
        Path root = snapshot.agentJar().getParent();
        if (arm == Arm.FIRST) {
            return "class-cache=" + Files.createTempDirectory(root, "first-start-").resolve("classes");
        }
        return "class-cache=" + root.resolve("class-cache-" + cell.jdk() + "-" + cell.client());
    }

    private static Run firstResponse(Snapshot snapshot, URI server, Cell cell, Arm arm)
            throws IOException, InterruptedException {
        ChildJvm jvm = ClientChild.jvm(snapshot, cell.jdk(), cell.client());
        if (arm == Arm.WITH || arm == Arm.FIRST) {
            jvm.jvmArg(snapshot.javaagent(classCache(snapshot, cell, arm)));
        } else if (arm == Arm.OFF) {
            jvm.jvmArg(snapshot.javaagent(OFF_ARGUMENT));
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
                result.number("classes"), result.text("version"), arm == Arm.WITH || arm == Arm.FIRST ? ClientChild.agentCounted(child, server) : -1,
                child.stderr.contains(OFF_LINE));
    }
}
