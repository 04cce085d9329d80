package dev.retryafter.it.bench;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * Every decision and wait the engine takes in every cell of the limiter benchmark, in virtual time, reduced to one
 * digest per cell: what a change that must not alter behaviour (a refactoring of the house) is compared by. Run on
 * the commit before and after and diff the output; one line differing names the cell whose decisions changed.
 *
 * <p>{@code java -cp <test classpath> dev.retryafter.it.bench.DecisionTrace [--seeds=N]}
 */
public final class DecisionTrace {

    private DecisionTrace() {
    }

    public static void main(String[] args) throws Exception {
        int seeds = args.length > 0 && args[0].startsWith("--seeds=") ? Integer.parseInt(args[0].substring(8)) : 1;
        Contender agent = LimiterBenchmark.CONTENDERS.stream().filter(c -> c.name().equals(Contender.AGENT)).findFirst().orElseThrow();
        MessageDigest all = MessageDigest.getInstance("SHA-256");
        for (LimiterShape shape : LimiterShape.all(2_000)) {
            for (int threads : new int[] {1, 4}) {
                for (long seed = 1; seed <= seeds; seed++) {
                    StringBuilder trace = new StringBuilder();
                    AgentStrategy.trace = trace;
                    LimiterRun.run(shape, threads, 2_000, LimiterBenchmark.LATENCY_MILLIS, seed, agent);
                    AgentStrategy.trace = null;
                    byte[] bytes = trace.toString().getBytes(StandardCharsets.UTF_8);
                    byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
                    all.update(digest);
                    System.out.printf("%-40s %d workers seed %d: %s (%d lines)%n", shape.name(), threads, seed,
                            HexFormat.of().formatHex(digest, 0, 8), trace.chars().filter(c -> c == '\n').count());
                }
            }
        }
        System.out.println("all: " + HexFormat.of().formatHex(all.digest(), 0, 16));
    }
}
