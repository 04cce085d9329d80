package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.engine.Clock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis up, but refusing the store's commands for their data: out of memory, or another writer's
 * garbage in the agent's keys. Not an internal failure: one WARN naming Redis's error and no stack
 * trace; the host kept in this JVM meanwhile without a failing round trip per request; a key of
 * another type replaced, since the key space is the agent's.
 */
class RedisDataErrorTest {

    private static final String HOST = "portal.example:443";
    private static final long WAIT_MILLIS = 5_000;
    private static final long KEPT_LOCAL_MILLIS = 1_000;

    private final List<AutoCloseable> opened = new ArrayList<>();
    private final Clock clock = Clock.system();
    private final RecordingEvents events = new RecordingEvents();
    private final ByteArrayOutputStream agentLog = new ByteArrayOutputStream();
    private PrintStream err;
    private RedisServer server;
    private Jedis jedis;

    @BeforeEach
    void start() throws Exception {
        err = System.err; // first: a start that skips the test (no redis-server) still runs close(), which puts it back
        server = RedisServer.start();
        opened.add(server);
        jedis = new Jedis("127.0.0.1", server.port());
        opened.add(0, jedis);
        System.setErr(new PrintStream(agentLog, true, "UTF-8")); // the agent's log goes to standard error
    }

    @AfterEach
    void close() throws Exception {
        System.setErr(err);
        for (AutoCloseable c : opened) {
            c.close();
        }
    }

    private RedisKnowledgeStore store() {
        RedisKnowledgeStore store = RedisFixture.store(server.address(), "data", clock,
                new RedisKnowledgeStore.Options().refreshMillis(50).keptLocalMillis(KEPT_LOCAL_MILLIS), events);
        opened.add(0, store);
        return store;
    }

    private long goesAt(RedisKnowledgeStore store) {
        long now = clock.millis();
        return now + store.reserveSlot(HOST, now, 100, 60_000);
    }

    private String agentLog() {
        return new String(agentLog.toByteArray(), StandardCharsets.UTF_8);
    }

    private long commandsProcessed() {
        for (String line : jedis.info("stats").split("\r?\n")) {
            if (line.startsWith("total_commands_processed:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        throw new AssertionError("no total_commands_processed");
    }

    @Test
    void outOfMemoryIsOneWarnAndTheHostStaysInThisJvmWithoutARoundTripPerRequestThenGoesBack() throws Exception {
        RedisKnowledgeStore store = store();
        assertTrue(store.reserve(HOST, clock.millis(), 0, 60_000, 60_000).isPresent());
        assertEquals("OK", jedis.configSet("maxmemory-policy", "noeviction"));
        assertEquals("OK", jedis.configSet("maxmemory", "1"));

        long refusedAt = clock.millis();
        store.imposeNotBefore(HOST, refusedAt + WAIT_MILLIS); // a refusal's wait: Redis refuses the write
        store.refresh(); // waits for a refresh already under way when Redis refused: the count starts after it
        long before = commandsProcessed();
        for (int i = 0; i < 200; i++) {
            assertTrue(goesAt(store) >= refusedAt + WAIT_MILLIS, "the wait holds in this JVM");
            store.recordAdmitted(HOST, clock.millis());
        }
        Thread.sleep(200); // a few refreshes
        long trips = commandsProcessed() - before - 1; // the INFO itself
        assertTrue(trips <= 2, "200 requests and 4 refreshes while Redis refuses cost " + trips + " commands");
        assertTrue(store.link.isAvailable(), "Redis is up: no outage");
        assertEquals(1, events.refused.size(), events.refused.toString());
        assertTrue(events.refused.get(0).contains("OOM command not allowed"), events.refused.get(0));
        assertEquals(List.of(), events.unavailable);
        assertFalse(agentLog().contains("internal failure"), agentLog());
        assertFalse(agentLog().contains("\tat "), "no stack trace: " + agentLog());

        assertEquals("OK", jedis.configSet("maxmemory", "0"));
        Thread.sleep(KEPT_LOCAL_MILLIS);
        goesAt(store); // asked of Redis again: what this JVM learned meanwhile goes first
        RedisKnowledgeStore other = store();
        long otherGoes = goesAt(other);
        assertTrue(otherGoes >= refusedAt + WAIT_MILLIS - 100, "another JVM goes " + (otherGoes - refusedAt) + " ms after it");
        assertEquals(1, events.refused.size(), events.refused.toString());
    }

    @Test
    void keysOfAnotherTypeAreReplacedAndGarbageInFieldsReadsAsNone() throws Exception {
        RedisKnowledgeStore store = store();
        String hash = store.hashKey(HOST);
        jedis.set(hash, "another writer's"); // no expiry: broken for ever unless replaced
        jedis.hset(hash + ":streaks", "not", "a list");

        long refusedAt = clock.millis();
        store.imposeNotBefore(HOST, refusedAt + WAIT_MILLIS);
        assertEquals("hash", jedis.type(hash), "replaced, and the wait written to it");
        dev.retryafter.agent.engine.knowledge.InMemoryKnowledgeStore streak = new dev.retryafter.agent.engine.knowledge.InMemoryKnowledgeStore();
        streak.recordRefusal(HOST, refusedAt - 5000, refusedAt - 4800, OptionalLong.of(1000), false);
        streak.recordRecovery(HOST, refusedAt - 4600);
        assertTrue(store.mergeIntoFleet(HOST, streak.read(HOST)));
        assertEquals("list", jedis.type(hash + ":streaks"));
        RedisKnowledgeStore other = store();
        assertTrue(goesAt(other) >= refusedAt + WAIT_MILLIS - 100, "the fleet has the wait");
        assertEquals(1, events.refused.size(), "one line for both: " + events.refused);
        assertTrue(events.refused.get(0).contains("WRONGTYPE"), events.refused.get(0));

        // Garbage of the right type: fields a number should be in.
        jedis.hset(hash, "streak-start", "1");
        jedis.hset(hash, "streak-header", "soon");
        jedis.hset(hash, "cycle", "often");
        jedis.hset(hash, "ceiling", "high");
        jedis.hset(hash, "learned-at", "1");
        long now = clock.millis();
        store.recordRefusal(HOST, now, now - 5, OptionalLong.of(1000), false);
        store.refresh();
        store.learn(HOST, clock.millis(), java.util.Optional.empty(), OptionalInt.of(10));
        store.read(HOST);
        assertFalse(agentLog().contains("internal failure"), agentLog());
        assertEquals(List.of(), events.unavailable);
    }
}
