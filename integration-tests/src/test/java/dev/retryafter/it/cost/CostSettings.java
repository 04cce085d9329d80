package dev.retryafter.it.cost;

import dev.retryafter.it.harness.Jdk;

import java.util.List;

/**
 * What one run of the cost benchmark covers.
 *
 * @param rounds         happy-path rounds; each runs every cell once without the agent and once with it, in
 *                       turn first and last
 * @param leastWarmUpSeconds per happy-path child JVM, before its measured slices; it goes on while the JIT is busy,
 *                       up to {@code mostWarmUpSeconds}
 * @param slices         measured slices per arm and round, the arms of a cell taking turns
 * @param sliceSeconds   each slice's length
 * @param startUpRuns    measured start-up runs per JDK, client and arm
 * @param startUpWarmUps unmeasured start-up runs per JDK, client and arm first: the OS file cache
 *                       warmed for the agent jar and the client jars alike
 * @param hosts          hosts per memory population
 * @param busyRequests   requests per host in the busy population
 * @param longRunCalls   requests to one host in the long run
 * @param checkpoints    heap checkpoints in the long run, after its first request
 * @param stateHosts     hosts in the state file
 * @param stateRuns      measured saves and reads of the state file, after {@value StateFileCost#WARM_UPS} unmeasured
 * @param fleetClient    the happy-path cell also run with the fleet store ({@code store = redis://...}), each round
 * @param fleetThreads   its thread count
 */
record CostSettings(String mode, Jdk loadJdk, List<String> loadClients, List<Integer> threads, int rounds,
                    double leastWarmUpSeconds, double mostWarmUpSeconds, int slices, double sliceSeconds, List<Jdk> startUpJdks, List<String> startUpClients,
                    int startUpRuns, int startUpWarmUps, int hosts, int refusedEvery, int busyRequests,
                    long longRunCalls, int refuseEvery, int checkpoints, int stateHosts, int stateRuns,
                    String fleetClient, int fleetThreads) {

    /**
     * The agent's argument for the happy path: a concurrency cap no thread count here reaches (the
     * default, 8, would not bind at 4 threads either), so the figure is the agent's cost alone.
     * Everything else at its default.
     */
    static final String LOAD_AGENT_ARGUMENT = "default.max-concurrency=64";

    /** The fleet store's arm: the same, with every host shared on Redis (the store's own defaults otherwise). */
    static String fleetAgentArgument(String store) {
        return LOAD_AGENT_ARGUMENT + ",store=" + store + ",fleet=cost";
    }

    /** One request in ten refused once: a scraper's hosts are mostly quiet, a few have pushed back. */
    static final int REFUSED_EVERY = 10;
    /** Past the 512 successes a host's history keeps, so the busy population is each host at its largest. */
    static final int BUSY_REQUESTS = 600;
    static final int REFUSE_EVERY = 100;

    /**
     * About half an hour on two cores (31 minutes at six rounds), most of it the happy path's child JVMs. Their warm-up is
     * where the time goes: sharing two processors with the load and the server, the JIT takes five
     * to twenty seconds to settle, longer with the agent's code to compile too. Cut at seven, most
     * runs with the agent were measured still compiling (29 of 32, and Apache 5 on 4 threads read
     * 69%); cut at fourteen, half of them (12 of 24), and every cell read 85% to 96% on a machine
     * where, by hand, 20 s of warm-up read 94% to 105% for the same cell. Slices of a quarter of a
     * second, 40 an arm: at whole runs of 4 s one after another, the JDK client on 4 threads read
     * from 71% to 131% round by round; at slices of one second, 6 an arm, still 91% to 120%; at
     * these, three rounds read 98.3% to 103.4% on a quiet machine (90.6% to 91.4% while other
     * tests shared it), and with the agent in both arms 100.4% to 102.9%. Six rounds, not four: on a
     * machine whose slices of one JVM spread by 25% to 40% (its processors taken by others), a round's
     * ratio spread by 5%, and a median of four moved with any one round.
     */
    static CostSettings full() {
        return new CostSettings("full", Jdk.JAVA_17, List.of(LoopbackClient.JDK, LoopbackClient.APACHE5), List.of(1, 4),
                6, 4.0, 30.0, 40, 0.25, Jdk.all(), LoopbackClient.ALL, 5, 1, 10_000, REFUSED_EVERY, BUSY_REQUESTS,
                1_000_000, REFUSE_EVERY, 10, 10_000, 5, LoopbackClient.APACHE5, 4);
    }

    /** The happy path of {@link #full()} for one client at one thread count, and nothing else: {@link HappyPathCell}. */
    static CostSettings cell(String client, int threads, int rounds) {
        CostSettings full = full();
        return new CostSettings("cell", full.loadJdk(), List.of(client), List.of(threads), rounds, full.leastWarmUpSeconds(),
                full.mostWarmUpSeconds(), full.slices(), full.sliceSeconds(), List.of(), List.of(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                client, threads);
    }

    /**
     * Every part once, for seconds each, the warm-up fixed and short, start-up for one client per JDK:
     * the figures are only sanity-checked, and CI runs this beside other tests on two cores.
     */
    static CostSettings smoke() {
        return new CostSettings("smoke", Jdk.JAVA_17, List.of(LoopbackClient.JDK, LoopbackClient.APACHE5), List.of(1, 4),
                1, 0.3, 0.3, 2, 0.35, Jdk.all(), List.of(LoopbackClient.JDK), 1, 0, 1_000, REFUSED_EVERY, BUSY_REQUESTS,
                100_000, REFUSE_EVERY, 5, 1_000, 3, LoopbackClient.APACHE5, 4);
    }
}
