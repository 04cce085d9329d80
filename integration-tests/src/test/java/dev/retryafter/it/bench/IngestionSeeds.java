package dev.retryafter.it.bench;

import dev.retryafter.demo.portal.Behaviour;

import java.util.List;
import java.util.Locale;

/**
 * One row of the ingestion benchmark over many seeds, the agent beside the seed guide: the benchmark's table is one
 * seed, and a portal whose header is random (unreliable) draws other waits under another, so one row there can move by
 * a minute either way from a change that is no worse over many. Prints each seed's completion minutes and the means.
 *
 * <p>{@code java -cp <test classpath> dev.retryafter.it.bench.IngestionSeeds UNRELIABLE 100 [seeds]}
 */
public final class IngestionSeeds {

    private IngestionSeeds() {
    }

    public static void main(String[] args) {
        Scenario scenario = new Scenario(Behaviour.valueOf(args[0]), Integer.parseInt(args[1]));
        int seeds = args.length > 2 ? Integer.parseInt(args[2]) : 12;
        for (int threads : Settings.THREADS) {
            double agentSum = 0;
            double guideSum = 0;
            int agentNotSooner = 0;
            StringBuilder perSeed = new StringBuilder();
            for (long seed = 1; seed <= seeds; seed++) {
                Settings settings = new Settings("seeds", 2_000, List.of(scenario), List.of(threads), Settings.LATENCY_MILLIS, seed,
                        Settings.CAP_MILLIS);
                double agent = minutes(settings, scenario, threads, Contender.AGENT);
                double guide = minutes(settings, scenario, threads, "seed");
                agentSum += agent;
                guideSum += guide;
                agentNotSooner += agent >= guide ? 1 : 0;
                perSeed.append(String.format(Locale.ROOT, " %.1f/%.1f", agent, guide));
            }
            System.out.printf(Locale.ROOT, "%s at %d/min, %d workers, agent/seed guide minutes:%s%n  mean agent %.2f, seed guide %.2f;"
                            + " the agent no sooner in %d of %d%n", scenario.behaviour(), scenario.limitPerWindow(), threads, perSeed,
                    agentSum / seeds, guideSum / seeds, agentNotSooner, seeds);
        }
    }

    private static double minutes(Settings settings, Scenario scenario, int threads, String strategy) {
        Contender contender = Contender.ALL.stream().filter(c -> c.name().equals(strategy)).findFirst().orElseThrow();
        return CellRun.run(settings, scenario, threads, contender).completionMinutes();
    }
}
