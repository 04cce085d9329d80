package dev.retryafter.it.cost;

import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * What the engine costs on its own, in heap and in time: an {@link EngineProbe} child JVM with the
 * agent jar on its class path as a plain library, not as an agent, so the engine can be driven directly.
 */
final class EngineCost {

    /** Small enough that a full collection is quick, large enough for 10,000 busy hosts; serial, so {@code System.gc()} is one full, exact collection. */
    static final List<String> JVM_ARGS = List.of("-Xms256m", "-Xmx256m", "-XX:+UseSerialGC");

    private EngineCost() {
    }

    /** Retained heap after {@code requestsPerHost} requests to each of {@code hosts} hosts. */
    record Population(String name, int hosts, int requestsPerHost, long bytes) {

        double bytesPerHost() {
            return bytes / (double) hosts;
        }
    }

    /** Heap in use, after a full collection, once {@code calls} requests have gone to one host. */
    record Checkpoint(long calls, long usedBytes) {
    }

    /** No populations and no checkpoints: the JDK is missing. {@code nanosPerRequest}: the engine's time per admitted request. */
    record Result(Jdk jdk, List<Population> populations, List<Checkpoint> checkpoints, double nanosPerRequest) {

        boolean measured() {
            return !populations.isEmpty() && checkpoints.size() > 2;
        }

        Population population(String name) {
            return populations.stream().filter(p -> p.name().equals(name)).findFirst()
                    .orElseThrow(() -> new AssertionError("no population " + name));
        }

        /**
         * From the first regular checkpoint to the last: by then the host's bounded histories are full,
         * so whatever is added after is growth with no end. The step from the first request to there
         * is the histories filling.
         */
        long growthBytes() {
            return checkpoints.get(checkpoints.size() - 1).usedBytes() - checkpoints.get(1).usedBytes();
        }
    }

    static Result run(CostSettings settings, Snapshot snapshot) throws IOException, InterruptedException {
        Jdk jdk = settings.loadJdk();
        if (!jdk.isAvailable()) {
            CostBenchmark.loud(jdk + " NOT FOUND at " + jdk.java() + ": the memory rows are marked JDK missing");
            return new Result(jdk, List.of(), List.of(), Double.NaN);
        }
        ChildJvm jvm = new ChildJvm(jdk).measured().classpathEntry(snapshot.agentJar().toString())
                .classpathEntry(snapshot.classes().toString());
        JVM_ARGS.forEach(jvm::jvmArg);
        ChildJvm.Result child = jvm.timeout(Duration.ofMinutes(3))
                .main(EngineProbe.class.getName(), Integer.toString(settings.hosts()), Integer.toString(settings.refusedEvery()),
                        Integer.toString(settings.busyRequests()), Long.toString(settings.longRunCalls()),
                        Integer.toString(settings.refuseEvery()), Integer.toString(settings.checkpoints()))
                .run();
        List<Population> populations = ResultLine.all(child, EngineProbe.POPULATION).stream()
                .map(line -> new Population(line.text("name"), (int) line.number("hosts"), (int) line.number("requests"),
                        line.number("bytes")))
                .toList();
        List<Checkpoint> checkpoints = ResultLine.all(child, EngineProbe.CHECKPOINT).stream()
                .map(line -> new Checkpoint(line.number("calls"), line.number("used")))
                .toList();
        ResultLine time = ResultLine.first(child, EngineProbe.TIME);
        double nanosPerRequest = time.number("nanos") / (double) time.number("calls");
        CostBenchmark.progress(String.format(Locale.ROOT, "engine: %d populations, %d checkpoints, %.0f ns a request",
                populations.size(), checkpoints.size(), nanosPerRequest));
        return new Result(jdk, populations, checkpoints, nanosPerRequest);
    }
}
