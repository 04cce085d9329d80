package dev.retryafter.it.bench;

import dev.retryafter.agent.store.redis.RedisServer;
import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.demo.portal.PortalStats;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.ScraperRun;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Several scraper JVMs with the agent against one portal that counts them together (fixed windows,
 * a lying header), sharing one Redis; the same run without the store is printed beside it: the
 * efficiency (admitted over what the limit allowed in the windows the scraping took), requests,
 * refusals and each JVM's time. The goal is an efficiency of at least 0.9 with the store; measured
 * 0.63-0.68 so far, so it is a benchmark that prints its figures, not a test. Needs a redis-server
 * on the PATH and the build's output ({@code mvn -B verify -pl integration-tests -am -DskipTests});
 * then, from {@code integration-tests} (the harness's paths default to its {@code target}):
 * <pre>
 * java -cp "$(cat target/test-classpath.txt):target/test-classes" dev.retryafter.it.bench.FleetBenchmark [--smoke]
 * </pre>
 * Every JVM must still fetch every record; a lost one ends the run with an error.
 */
public final class FleetBenchmark {

    static final int LIMIT = 20;
    static final long WINDOW = 2_000;
    private static final AtomicInteger FLEETS = new AtomicInteger();
    private static RedisServer redis;

    private FleetBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        boolean smoke = args.length > 0 && args[0].equals("--smoke");
        int records = smoke ? 30 : 100;
        String[][] cells = smoke ? new String[][] {{"3", "ALWAYS_ZERO"}}
                : new String[][] {{"3", "ALWAYS_ZERO"}, {"3", "CONSTANT_OVERSTATED"}, {"3", "ABSENT"}, {"5", "ALWAYS_ZERO"}};
        redis = RedisServer.start();
        try {
            for (String[] cell : cells) {
                int jvms = Integer.parseInt(cell[0]);
                Behaviour behaviour = Behaviour.valueOf(cell[1]);
                FleetRun alone = run(jvms, behaviour, false, records);
                FleetRun fleet = run(jvms, behaviour, true, records);
                System.out.println(behaviour);
                System.out.println("  " + alone.line("no store"));
                System.out.println("  " + fleet.line("redis"));
                for (FleetRun run : List.of(alone, fleet)) {
                    for (ScraperRun scraper : run.runs) {
                        if (scraper.fetched != records || scraper.jvm.stderr.contains("Exception in thread")) {
                            throw new IllegalStateException("a record was lost or a thread died:\n" + scraper);
                        }
                    }
                }
                System.out.println(fleet.efficiency() >= 0.9 ? "  goal (>= 0.9) met" : "  goal (>= 0.9) NOT met");
            }
        } finally {
            redis.close();
        }
    }

    static final class FleetRun {
        final PortalStats stats;
        final List<ScraperRun> runs;
        final long elapsedMillis;

        FleetRun(PortalStats stats, List<ScraperRun> runs, long elapsedMillis) {
            this.stats = stats;
            this.runs = runs;
            this.elapsedMillis = elapsedMillis;
        }

        /**
         * Admitted requests over what the limit allowed in the windows the scraping took: the longest
         * JVM's own time (from its first request to its last), since the JVMs start together but
         * take their own time to start, which no portal sees.
         */
        double efficiency() {
            long span = 0;
            for (ScraperRun run : runs) {
                span = Math.max(span, run.elapsedMillis);
            }
            long windows = Math.max(1, (span + WINDOW - 1) / WINDOW);
            return stats.admitted / (double) (LIMIT * windows);
        }

        String line(String name) {
            StringBuilder times = new StringBuilder();
            for (ScraperRun run : runs) {
                times.append(' ').append(run.elapsedMillis);
            }
            return String.format(Locale.ROOT, "%-9s %d JVMs: efficiency %.2f, %d requests, %d refused (%.1f%%), %d ms; JVM times (ms):%s",
                    name, runs.size(), efficiency(), stats.requests, stats.refusals, 100.0 * stats.refusals / stats.requests,
                    elapsedMillis, times);
        }
    }

    static FleetRun run(int jvms, Behaviour behaviour, boolean shared, int records) throws Exception {
        String policy = "default.min-sleep = 300ms\n"
                + "default.max-sleep = 3s\n"
                + "default.window = 2s\n"
                + "default.max-attempts = 12\n"
                + (shared ? "store = redis://127.0.0.1:" + redis.port() + "\nfleet = it" + FLEETS.incrementAndGet() + "\n" : "");
        try (PortalServer portal = new PortalServer(new PortalModel(behaviour, LIMIT, WINDOW))) {
            ExecutorService pool = Executors.newFixedThreadPool(jvms);
            try {
                long start = System.nanoTime();
                List<Future<ScraperRun>> futures = new ArrayList<>();
                for (int i = 0; i < jvms; i++) {
                    futures.add(pool.submit(() -> ScraperRun.run(new ChildJvm(Jdk.JAVA_17).timeout(Duration.ofMinutes(8)), policy, "jdk",
                            portal.baseUrl(), records)));
                }
                List<ScraperRun> runs = new ArrayList<>();
                for (Future<ScraperRun> future : futures) {
                    runs.add(future.get(10, TimeUnit.MINUTES));
                }
                return new FleetRun(portal.stats(), runs, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
