package dev.retryafter.it.bench;

import dev.retryafter.agent.store.redis.RedisServer;
import dev.retryafter.it.harness.BenchmarkMain;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.FlappingProxy;
import dev.retryafter.it.harness.LyingHostsScrape;
import dev.retryafter.it.harness.LyingPortal;
import redis.clients.jedis.Jedis;

import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * The fleet store's log under a slow and flapping Redis, minute by minute: one JVM with the agent,
 * 16 threads scraping 500 lying hosts ({@code Retry-After: 0}), its store on a real redis-server
 * through {@link FlappingProxy} (the link cut or stalled for about 300 ms every 2 s or so), and the
 * server itself paused ({@code CLIENT PAUSE}, 80 to 300 ms) every 1.5 s or so: slow answers, each
 * a timeout at the default 50 ms. Counts the agent's lines about the store (its outage, refusal
 * and failure lines) in each minute of the run, and re-sends sooner than {@code min-sleep} after
 * their refusal. Exits 1 when any minute has more than {@value #MOST_LINES_A_MINUTE} lines.
 * Not part of the test command; by hand, after a build ({@code mvn -B -o -pl agent,integration-tests
 * -am verify -DskipTests}), from {@code integration-tests}:
 * <pre>
 *   java -Dsoak.minutes=10 -Dtest.classes="$PWD/target/test-classes" -cp "$(cat target/test-classpath.txt):target/test-classes" \
 *       dev.retryafter.it.bench.FleetStoreSoak [--smoke] [--out=PATH]
 * </pre>
 * {@code --smoke}: 2 minutes. The report goes to {@code ../benchmark-results/fleet-store-soak.md}.
 */
public final class FleetStoreSoak {

    static final int MOST_LINES_A_MINUTE = 10;
    private static final long MIN_SLEEP_MILLIS = 200;
    private static final int HOSTS = 500;
    private static final int THREADS = 16;
    private static final DateTimeFormatter MINUTE = DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT);

    private FleetStoreSoak() {
    }

    public static void main(String[] args) throws Exception {
        BenchmarkMain main = BenchmarkMain.parse(args, "soak.out", "../benchmark-results/fleet-store-soak.md");
        int minutes = main.smoke ? 2 : Integer.getInteger("soak.minutes", 10);
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger pauses = new AtomicInteger();
        LocalDateTime start = LocalDateTime.now();
        ChildJvm.Result result;
        String flaps;
        String floor;
        try (RedisServer redis = RedisServer.start(); FlappingProxy proxy = new FlappingProxy(redis.port(), 2000, 300);
             LyingPortal portal = new LyingPortal(MIN_SLEEP_MILLIS)) {
            Thread slow = new Thread(() -> pauseNowAndThen(redis.port(), running, pauses), "soak-slow-redis");
            slow.setDaemon(true);
            slow.start();
            try {
                result = LyingHostsScrape.run(portal, "redis://127.0.0.1:" + proxy.port(), MIN_SLEEP_MILLIS, HOSTS, THREADS,
                        minutes * 60);
            } finally {
                running.set(false);
            }
            flaps = proxy.cuts() + " cuts and " + proxy.stalls() + " stalls of the link, " + pauses + " pauses of the server";
            floor = portal.toString();
            if (portal.resentTooSoon() > 0) {
                System.out.println("FLOOR BROKEN: " + portal.resentTooSoon() + " re-sends sooner than min-sleep");
            }
        }
        LocalDateTime end = LocalDateTime.now();
        List<String> lines = result.stderr.lines()
                .filter(l -> l.contains("retry-after-agent") && (l.contains("fleet store") || l.contains("internal failure")))
                .collect(Collectors.toList());
        TreeMap<LocalDateTime, int[]> perMinute = new TreeMap<>();
        for (LocalDateTime m = start.truncatedTo(ChronoUnit.MINUTES); !m.isAfter(end); m = m.plusMinutes(1)) {
            perMinute.put(m, new int[1]);
        }
        for (String line : lines) {
            LocalTime at = LocalTime.parse(line.substring(0, 5), MINUTE);
            for (LocalDateTime m : perMinute.keySet()) {
                if (m.toLocalTime().equals(at)) {
                    perMinute.get(m)[0]++;
                }
            }
        }
        StringBuilder report = new StringBuilder("# The fleet store's log under a slow, flapping Redis\n\n")
                .append(String.format(Locale.ROOT, "Run %s, %d min: one JVM (Java 17), %d threads, %d lying hosts; %s.%n%n",
                        start.truncatedTo(ChronoUnit.SECONDS), minutes, THREADS, HOSTS, flaps))
                .append("| minute | store lines |\n|---|---|\n");
        int worst = 0;
        for (var minute : perMinute.entrySet()) {
            report.append("| ").append(minute.getKey().toLocalTime().format(MINUTE)).append(" | ").append(minute.getValue()[0]).append(" |\n");
            worst = Math.max(worst, minute.getValue()[0]);
        }
        report.append(String.format(Locale.ROOT, "%nIn all %d lines, at most %d in a minute (limit %d). The application: %s. "
                + "Floor (min-sleep %d ms): %s.%n%nThe lines:%n%n```%n%s%n```%n", lines.size(), worst, MOST_LINES_A_MINUTE,
                result.stdout.lines().filter(l -> l.startsWith("DONE")).findFirst().orElse("no DONE line, exit " + result.exitCode),
                MIN_SLEEP_MILLIS, floor, String.join("\n", lines.subList(0, Math.min(lines.size(), 40)))));
        main.publish(report.toString());
        System.exit(worst > MOST_LINES_A_MINUTE || result.exitCode != 0 ? 1 : 0);
    }

    /** CLIENT PAUSE of 80 to 300 ms, about every 1.5 s, straight to the server: a Redis slow to answer. */
    private static void pauseNowAndThen(int port, AtomicBoolean running, AtomicInteger pauses) {
        Random random = new Random(28);
        while (running.get()) {
            try {
                Thread.sleep(750 + random.nextInt(1500));
                try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                    jedis.clientPause(80 + random.nextInt(220));
                    pauses.incrementAndGet();
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // the server between two starts: the next pause will do
            }
        }
    }
}
