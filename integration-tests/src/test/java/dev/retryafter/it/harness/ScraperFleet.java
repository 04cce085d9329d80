package dev.retryafter.it.harness;

import dev.retryafter.demo.portal.Behaviour;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Several scraper JVMs with the agent, on Java 17, started together against one {@link FleetPortal}
 * (whose gate holds each one's first request until all have sent theirs);
 * each names itself to the portal by its API key ({@code jvm1}, {@code jvm2}...). With a Redis
 * address they share it as one fleet; without, each knows only its own requests.
 */
public final class ScraperFleet {

    public final FleetPortal.Seen seen;
    public final List<ScraperRun> runs;
    /** What each JVM had admitted in each window, as the portal counted. */
    public final String admittedPerJvm;

    private ScraperFleet(FleetPortal.Seen seen, List<ScraperRun> runs, String admittedPerJvm) {
        this.seen = seen;
        this.runs = runs;
        this.admittedPerJvm = admittedPerJvm;
    }

    /** The policy every JVM gets: the fleet tests' and the fleet benchmark's. {@code redis} null: no store. */
    public static String policy(String redis, String fleet) {
        return "default.min-sleep = 300ms\n"
                + "default.max-sleep = 3s\n"
                + "default.window = 2s\n"
                + "default.max-attempts = 12\n"
                + (redis != null ? "store = " + redis + "\nstore-timeout = 1s\nfleet = " + fleet + "\n" : "");
    }

    public static ScraperFleet run(int jvms, Behaviour behaviour, int limit, long windowMillis, String policy, int records)
            throws Exception {
        try (FleetPortal portal = new FleetPortal(behaviour, limit, windowMillis, jvms)) {
            ExecutorService pool = Executors.newFixedThreadPool(jvms);
            Thread test = Thread.currentThread();
            ChildJvm.shareTurn(); // the fleet's JVMs run at once, on this test's one turn
            try {
                List<Future<ScraperRun>> futures = new ArrayList<>();
                for (int i = 1; i <= jvms; i++) {
                    String key = "jvm" + i;
                    futures.add(pool.submit(() -> ChildJvm.onTurnOf(test, () -> ScraperRun.run(new ChildJvm(Jdk.JAVA_17)
                            .timeout(Duration.ofMinutes(5)), policy, "jdk", portal.baseUrl(), records, "--api-key", key, "--timeout", "120"))));
                }
                List<ScraperRun> runs = new ArrayList<>();
                for (Future<ScraperRun> future : futures) {
                    runs.add(future.get(6, TimeUnit.MINUTES));
                }
                return new ScraperFleet(portal.seen(), runs, portal.admittedPerJvmAndWindow());
            } finally {
                pool.shutdownNow();
                ChildJvm.endSharing();
            }
        }
    }

    /** Records every JVM fetched, and whether any lost one or printed an exception. */
    public int fetched() {
        int n = 0;
        for (ScraperRun run : runs) {
            n += run.fetched;
        }
        return n;
    }

    public boolean anyException() {
        for (ScraperRun run : runs) {
            if (run.jvm.stderr.contains("Exception in thread") || run.jvm.stderr.contains("\tat ")) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        StringBuilder all = new StringBuilder(seen.line("fleet"));
        for (ScraperRun run : runs) {
            all.append('\n').append(run);
        }
        return all.toString();
    }
}
