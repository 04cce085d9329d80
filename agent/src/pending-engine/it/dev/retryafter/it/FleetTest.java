package dev.retryafter.it;

import dev.retryafter.agent.store.redis.RedisServer;
import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.demo.portal.PortalStats;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.ScraperRun;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Several scraper JVMs with the agent against one portal that counts them together (fixed windows,
 * a lying header), sharing one Redis; the same run without the store is printed beside it. Every
 * record arrives either way; with the store, the fleet together uses at least 0.9 of the limit.
 */
class FleetTest {

    static final int LIMIT = 20;
    static final long WINDOW = 2_000;
    static final int RECORDS_PER_JVM = 100;
    private static final AtomicInteger FLEETS = new AtomicInteger();
    private static RedisServer redis;

    @BeforeAll
    static void startRedis() throws Exception {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() throws Exception {
        if (redis != null) {
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

    static FleetRun run(int jvms, Behaviour behaviour, boolean shared) throws Exception {
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
                            portal.baseUrl(), RECORDS_PER_JVM)));
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

    @ParameterizedTest(name = "{0} JVMs, {1}")
    @CsvSource({"3, ALWAYS_ZERO", "3, CONSTANT_OVERSTATED", "3, ABSENT", "5, ALWAYS_ZERO"})
    void aFleetSharingOneRedisUsesTheLimitTogether(int jvms, Behaviour behaviour) throws Exception {
        FleetRun alone = run(jvms, behaviour, false);
        FleetRun fleet = run(jvms, behaviour, true);
        System.out.println(alone.line("no store"));
        System.out.println(fleet.line("redis"));
        for (FleetRun run : List.of(alone, fleet)) {
            for (ScraperRun scraper : run.runs) {
                assertEquals(RECORDS_PER_JVM, scraper.fetched, () -> "no record lost\n" + scraper);
                assertTrue(!scraper.jvm.stderr.contains("Exception in thread"), () -> scraper.jvm.stderr);
            }
        }
        assertTrue(fleet.efficiency() >= 0.9, () -> fleet.line("redis") + "\n" + alone.line("no store"));
    }
}
