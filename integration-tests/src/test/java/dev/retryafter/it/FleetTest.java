package dev.retryafter.it;

import com.sun.net.httpserver.HttpServer;
import dev.retryafter.agent.store.redis.RedisFixture;
import dev.retryafter.agent.store.redis.RedisServer;
import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Inconclusive;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.FleetPortal;
import dev.retryafter.it.harness.ScraperFleet;
import dev.retryafter.it.harness.ScraperRun;
import dev.retryafter.demo.AgentReport;
import redis.clients.jedis.Jedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Scraper JVMs with the agent and {@code store = redis://...} on a real redis-server: what one JVM
 * learns, another obeys; a Redis that dies mid-run costs the application nothing; a Redis
 * restarted empty is shared again. One JDK is enough: what is shared goes through the agent's own
 * code, the same on every JDK. How well a fleet uses a portal's limit together is
 * {@code FleetEfficiencyTest}'s to assert and {@code bench.FleetBenchmark}'s to measure.
 */
class FleetTest {

    /** The Retry-After of the portal's first refusal: long enough for a second JVM to start within it. */
    static final int CLOSED_SECONDS = 10;
    private static final AtomicInteger FLEETS = new AtomicInteger();

    @RegisterExtension
    static final RedisFixture REDIS = new RedisFixture();

    /** A fleet of its own on {@code redisPort}; a generous timeout, as a loaded machine is not what is tested. */
    static String policy(int redisPort, String maxSleep) {
        return "default.max-sleep = " + maxSleep + "\n"
                + "store = redis://127.0.0.1:" + redisPort + "\n"
                + "store-timeout = 2s\n"
                + "fleet = it" + FLEETS.incrementAndGet() + "\n";
    }

    /**
     * A portal closed for {@value #CLOSED_SECONDS} s from its first request (429, Retry-After), open
     * after; it counts refusals by the query's {@code apikey}, which names the JVM.
     */
    static final class ClosingPortal implements AutoCloseable {
        final HttpServer server;
        final AtomicLong closedUntilNanos = new AtomicLong();
        final AtomicInteger refusedFirst = new AtomicInteger();
        final AtomicInteger refusedSecond = new AtomicInteger();
        final AtomicInteger admittedSecond = new AtomicInteger();

        ClosingPortal() throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
            server.setExecutor(Executors.newCachedThreadPool(task -> {
                Thread thread = new Thread(task, "closing-portal");
                thread.setDaemon(true);
                return thread;
            }));
            server.createContext("/", exchange -> {
                long now = System.nanoTime();
                boolean second = String.valueOf(exchange.getRequestURI().getQuery()).contains("apikey=second");
                closedUntilNanos.compareAndSet(0, now + TimeUnit.SECONDS.toNanos(CLOSED_SECONDS));
                boolean closed = now - closedUntilNanos.get() < 0;
                if (closed) {
                    (second ? refusedSecond : refusedFirst).incrementAndGet();
                    exchange.getResponseHeaders().set("Retry-After", Long.toString(
                            Math.max(1, TimeUnit.NANOSECONDS.toSeconds(closedUntilNanos.get() - now + 999_999_999))));
                } else if (second) {
                    admittedSecond.incrementAndGet();
                }
                byte[] body = closed ? new byte[0] : "{\"record\":1}".getBytes();
                exchange.sendResponseHeaders(closed ? 429 : 200, body.length == 0 ? -1 : body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            });
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        /** Whether a scraping that ended by {@code endNanos} and took {@code millis} surely began while the portal was closed. */
        boolean beganWhileClosed(long endNanos, long millis) {
            return endNanos - TimeUnit.MILLISECONDS.toNanos(millis) - closedUntilNanos.get() < 0;
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    @Test
    void aSecondJvmWaitsOutTheWaitTheFirstLearned() throws Exception {
        String policy = policy(REDIS.server().port(), "60s");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (ClosingPortal portal = new ClosingPortal()) {
            Future<ScraperRun> first = pool.submit(() -> ScraperRun.run(new ChildJvm(Jdk.JAVA_17).timeout(Duration.ofMinutes(2)),
                    policy, "jdk", portal.url(), 2, "--api-key", "first"));
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (portal.refusedFirst.get() == 0 && !first.isDone() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(portal.refusedFirst.get() > 0, "the first JVM was refused: " + (first.isDone() ? first.get() : "still running"));
            ScraperRun second = ScraperRun.run(new ChildJvm(Jdk.JAVA_17).timeout(Duration.ofMinutes(2)), policy, "jdk",
                    portal.url(), 3, "--api-key", "second");
            long secondEnded = System.nanoTime();
            ScraperRun firstRun = first.get(2, TimeUnit.MINUTES);
            // Its scraping began no later than its end less its own time: before the portal opened, or this showed nothing.
            assumeTrue(portal.beganWhileClosed(secondEnded, second.elapsedMillis), () -> "the second JVM took " + CLOSED_SECONDS
                    + " s or more to start, so it met an open portal: inconclusive\n" + second);
            assertEquals(0, portal.refusedSecond.get(), () -> "the second JVM was refused where the first had learned to wait\n" + second);
            assertEquals(3, second.fetched, () -> second.toString());
            assertEquals(3, portal.admittedSecond.get());
            assertEquals(2, firstRun.fetched, () -> firstRun.toString());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void withRedisKilledMidRunTheApplicationStillGetsEveryRecord() throws Exception {
        int records = 60;
        try (RedisServer dying = RedisServer.start();
             PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 20, 2_000))) {
            CompletableFuture<Long> killedAfter = CompletableFuture.supplyAsync(() -> {
                try {
                    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
                    while (portal.stats().requests < records / 3 && System.nanoTime() < deadline) {
                        Thread.sleep(10);
                    }
                    long requests = portal.stats().requests;
                    dying.kill();
                    return requests;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return -1L;
                }
            });
            // Bounded generously: 60 records at the portal's 10 a second is 6 s; minutes mean a hang.
            ScraperRun run = ScraperRun.run(new ChildJvm(Jdk.JAVA_17).timeout(Duration.ofMinutes(3)),
                    "default.window = 2s\n" + policy(dying.port(), "10s"), "jdk", portal.baseUrl(), records);
            long killedAt = killedAfter.get(1, TimeUnit.MINUTES);
            assertEquals(records, run.fetched, () -> "every record, Redis or not\n" + run);
            assertEquals(0, run.failed, () -> run.toString());
            assertFalse(run.jvm.stderr.contains("Exception in thread") || run.jvm.stderr.contains("\tat "),
                    () -> "no exception, no stack trace\n" + run.jvm.stderr);
            assertTrue(killedAt < portal.stats().requests, () -> "Redis died mid-run, after " + killedAt + " of "
                    + portal.stats().requests + " requests\n" + run);
            assertTrue(run.jvm.stderr.contains("unavailable") || run.jvm.stdout.contains("unavailable"),
                    () -> "the agent said the fleet store went away\n" + run);
        }
    }
    /**
     * Redis killed mid-run and started again, empty, on the same port: the JVM that was running
     * merges what it learned back into it, and a JVM started after the restart paces by it.
     */
    @Test
    void withRedisRestartedTheJvmsShareAgain() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (RedisServer restarting = RedisServer.start(); FleetPortal portal = new FleetPortal(Behaviour.ALWAYS_ZERO, 20, 2_000)) {
            String fleet = "restart" + FLEETS.incrementAndGet();
            String policy = ScraperFleet.policy("redis://127.0.0.1:" + restarting.port(), fleet);
            String hash = "retry-after:{" + fleet + "}:host:" + portal.baseUrl().substring("http://".length());
            Future<ScraperRun> first = pool.submit(() -> ScraperRun.run(new ChildJvm(Jdk.JAVA_17).timeout(Duration.ofMinutes(3)), policy,
                    "jdk", portal.baseUrl(), 140, "--api-key", "jvm1"));
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            // Until it was refused, so it has learned: a machine busy enough sends no faster than the limit for a while.
            while ((portal.seen().requests < 40 || portal.seen().refusals == 0) && !first.isDone() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            Inconclusive.unlessRefused(portal.seen().refusals, () -> "the first JVM was never refused: " + portal.seen().line("fleet"));
            long t0 = System.nanoTime();
            restarting.kill();
            Thread.sleep(500);
            restarting.startAgain();
            System.out.println("restart: Redis back after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " ms");
            String mergedCeiling = null;
            try (Jedis redis = new Jedis("127.0.0.1", restarting.port())) {
                while (mergedCeiling == null && !first.isDone() && System.nanoTime() < deadline) {
                    mergedCeiling = redis.hget(hash, "ceiling");
                    Thread.sleep(50);
                }
            }
            assertTrue(mergedCeiling != null && Integer.parseInt(mergedCeiling) > 0,
                    () -> "the running JVM merged what it learned back into the restarted Redis");
            System.out.println("restart: merged back after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " ms");
            ScraperRun second = ScraperRun.run(new ChildJvm(Jdk.JAVA_17).timeout(Duration.ofMinutes(3)), policy, "jdk", portal.baseUrl(), 20,
                    "--api-key", "jvm2");
            System.out.println("restart: second JVM done after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " ms");
            ScraperRun firstRun = first.get(3, TimeUnit.MINUTES);
            System.out.println("restart: first JVM done after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " ms");
            assertEquals(140, firstRun.fetched, firstRun::toString);
            assertEquals(20, second.fetched, second::toString);
            for (ScraperRun run : List.of(firstRun, second)) {
                assertFalse(run.jvm.stderr.contains("Exception in thread") || run.jvm.stderr.contains("\tat "), run::toString);
            }
            AgentReport.Host learned = second.report().host(portal.baseUrl().substring("http://".length()));
            System.out.println("after the restart, the second JVM: " + learned + "\nthe first JVM: " + firstRun + "\n" + firstRun.jvm.stderr);
            if (learned.number("refusals") == 0) {
                assertTrue(learned.number("learnedCeiling") > 0, () -> "never refused, it knew the fleet's ceiling: " + learned);
            } else {
                System.out.println("the second JVM was refused itself, so its ceiling may be its own: that part is inconclusive");
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
