package dev.retryafter.it.bench;

import dev.retryafter.agent.store.redis.RedisServer;
import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.it.harness.ScraperFleet;
import dev.retryafter.it.harness.ScraperRun;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Several scraper JVMs with the agent against one portal that counts them together (fixed windows,
 * a lying header), sharing one Redis; the same run without the store is printed beside it: the
 * efficiency as the portal saw it (ideal time over the fleet's span, {@link dev.retryafter.it.harness.FleetPortal}),
 * requests, refusals and each JVM's time. The goal is an efficiency of at least 0.9 with the store;
 * {@code FleetEfficiencyTest} asserts it, loosened for load. Needs a redis-server
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
        int records = smoke ? 30 : 70;
        String[][] cells = smoke ? new String[][] {{"3", "ALWAYS_ZERO"}}
                : new String[][] {{"3", "ALWAYS_ZERO"}, {"3", "CONSTANT_OVERSTATED"}, {"3", "ABSENT"}, {"5", "ALWAYS_ZERO"}};
        redis = RedisServer.start();
        try {
            for (String[] cell : cells) {
                int jvms = Integer.parseInt(cell[0]);
                Behaviour behaviour = Behaviour.valueOf(cell[1]);
                int each = jvms == 5 ? records * 3 / 5 : records;
                ScraperFleet alone = ScraperFleet.run(jvms, behaviour, LIMIT, WINDOW, ScraperFleet.policy(null, null), each);
                ScraperFleet fleet = ScraperFleet.run(jvms, behaviour, LIMIT, WINDOW,
                        ScraperFleet.policy("redis://127.0.0.1:" + redis.port(), "bench" + FLEETS.incrementAndGet()), each);
                System.out.println(behaviour + ", " + each + " records per JVM");
                System.out.println("  " + alone.seen.line("no store"));
                System.out.println("  " + fleet.seen.line("redis"));
                for (ScraperFleet run : List.of(alone, fleet)) {
                    if (run.fetched() != jvms * each || run.anyException()) {
                        throw new IllegalStateException("a record was lost or a thread died:\n" + run);
                    }
                }
                if (Boolean.getBoolean("fleet.trace")) {
                    for (ScraperRun scraper : fleet.runs) {
                        System.out.println("  JVM report: " + scraper.report().hosts());
                        System.out.println(scraper.jvm.stderr);
                    }
                }
                System.out.println(fleet.seen.efficiency() >= 0.9 ? "  goal (>= 0.9) met" : "  goal (>= 0.9) NOT met");
            }
        } finally {
            redis.close();
        }
    }
}
