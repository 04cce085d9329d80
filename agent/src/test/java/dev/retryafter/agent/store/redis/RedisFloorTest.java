package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.engine.Clock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The floor after a refusal (no request sooner than the wait it imposed) holds whatever the fleet's
 * Redis does meanwhile: a wait this JVM imposed is never dropped because Redis answered without it.
 * Deterministic: each case sets up the moment where the old code took Redis's answer alone.
 */
class RedisFloorTest {

    private static final String HOST = "portal.example:443";
    /** The refusal's wait: long enough that no slowness of the test machine can pass for it. */
    private static final long WAIT_MILLIS = 5_000;

    private final List<AutoCloseable> opened = new ArrayList<>();
    private final Clock clock = Clock.system();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
    }

    private RedisServer server() throws Exception {
        RedisServer server = RedisServer.start();
        opened.add(server);
        return server;
    }

    private RedisKnowledgeStore store(RedisServer server) {
        RedisKnowledgeStore store = RedisFixture.store(server.address(), "floor", clock,
                new RedisKnowledgeStore.Options().refreshMillis(50), new RecordingEvents());
        opened.add(0, store);
        return store;
    }

    /** The moment a request asking now may go: never before the refusal's not-before. */
    private long goesAt(RedisKnowledgeStore store) {
        long now = clock.millis();
        return now + store.reserveSlot(HOST, now, 0, 60_000);
    }

    @Test
    void aWaitImposedWhileRedisWasAwayHoldsForARequestAskingAsItComesBack() throws Exception {
        RedisServer server = server();
        RedisKnowledgeStore store = store(server);
        List<Long> askedOnReturn = new CopyOnWriteArrayList<>();
        // Added after the store's own merge-back, so it runs first: a request thread asks while
        // the link comes back and before what was imposed meanwhile has reached Redis.
        store.link.onRestored(() -> {
            Thread request = new Thread(() -> askedOnReturn.add(goesAt(store)));
            request.start();
            try {
                request.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(store.reserve(HOST, clock.millis(), 0, 60_000, 60_000).isPresent(), "Redis answers at first");

        server.kill();
        await(() -> {
            store.reserve(HOST, clock.millis(), 0, 60_000, 60_000);
            return !store.link.isAvailable();
        }, "the circuit opens on a dead Redis");
        long refusedAt = clock.millis();
        store.imposeNotBefore(HOST, refusedAt + WAIT_MILLIS); // a refusal's wait, while Redis is away
        server.startAgain(); // empty: the wait is nowhere in Redis
        await(() -> !askedOnReturn.isEmpty() && store.link.isAvailable(), "the link comes back");

        assertTrue(askedOnReturn.get(0) >= refusedAt + WAIT_MILLIS,
                "a request asking as Redis came back went " + (askedOnReturn.get(0) - refusedAt) + " ms after the refusal, not "
                        + WAIT_MILLIS);
        assertTrue(goesAt(store) >= refusedAt + WAIT_MILLIS, "and once it is back");
        // The merge-back carried it to the fleet: another JVM waits too (give or take the conversion through Redis's clock).
        RedisKnowledgeStore other = store(server);
        long otherGoes = goesAt(other);
        assertTrue(otherGoes >= refusedAt + WAIT_MILLIS - 100, "another JVM goes " + (otherGoes - refusedAt) + " ms after it");
    }

    @Test
    void aWaitRedisLostStillHoldsForThisJvm() throws Exception {
        RedisServer server = server();
        RedisKnowledgeStore store = store(server);
        long refusedAt = clock.millis();
        store.imposeNotBefore(HOST, refusedAt + WAIT_MILLIS);
        try (Jedis jedis = new Jedis("127.0.0.1", server.port())) {
            assertEquals("OK", jedis.flushAll()); // evicted, expired, or a Redis restarted between two calls
        }
        assertTrue(goesAt(store) >= refusedAt + WAIT_MILLIS, "this JVM's own wait stands when Redis no longer has it");
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "within 30 s: " + what);
            Thread.sleep(10);
        }
    }
}
