package dev.retryafter.demo;

import dev.retryafter.demo.portal.Behaviour;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The demo: starts every lying portal on loopback, runs the unchanged legacy scraper against each,
 * once without the agent and once with it, and prints what each portal counted, side by side.
 * <pre>
 * mvn -B -q package -DskipTests &amp;&amp; mvn -B -q -pl demo-app exec:java -Dexec.mainClass=dev.retryafter.demo.Demo
 * </pre>
 * Options: {@code --client jdk|jdk-async|apache5|apache5-async|apache4|apache4-async|urlconnection|okhttp|okhttp-async|jetty
 * |commons3|asynchttpclient|vertx|spring-webclient --records 40 --threads 2 --java 8|11|17|21|25|PATH --agent-only}.
 */
public final class Demo {

    private Demo() {
    }

    public static void main(String[] args) throws Exception {
        DemoOptions options = DemoOptions.parse(args);
        System.out.println("Scraping " + Behaviour.values().length + " lying portals (" + options.records + " records each, "
                + options.threads + " threads, client " + options.client + ") without and with the agent...");
        long start = System.nanoTime();
        List<DemoRun.Row> rows;
        try {
            rows = run(options);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof IllegalArgumentException)) {
                throw e;
            }
            // The scraper could not start (a client its Java cannot run): its own line, not a stack trace.
            System.err.println("The demo stopped: " + e.getCause().getMessage());
            System.exit(2);
            return;
        }
        System.out.println();
        System.out.print(DemoTable.render(rows, options));
        System.out.printf(java.util.Locale.ROOT, "  The demo took %.0f s.%n", (System.nanoTime() - start) / 1e9);
    }

    /** Every portal, each mode; the portals run side by side, each in its own JVM, so the demo takes about a minute. */
    public static List<DemoRun.Row> run(DemoOptions options) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(Behaviour.values().length);
        try {
            List<Future<DemoRun.Row>> runs = new ArrayList<>();
            for (boolean withAgent : options.withoutAgentToo ? new boolean[] {false, true} : new boolean[] {true}) {
                for (Behaviour behaviour : Behaviour.values()) {
                    runs.add(pool.submit(() -> DemoRun.run(options, behaviour, withAgent)));
                }
                if (withAgent == false) {
                    // Finish the unguarded runs first: sharing two cores with them would slow the agent's column.
                    for (Future<DemoRun.Row> run : runs) {
                        run.get();
                    }
                }
            }
            List<DemoRun.Row> rows = new ArrayList<>();
            for (Future<DemoRun.Row> run : runs) {
                rows.add(run.get());
            }
            return rows;
        } finally {
            pool.shutdownNow();
        }
    }
}
