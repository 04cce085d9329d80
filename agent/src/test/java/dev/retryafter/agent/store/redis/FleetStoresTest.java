package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.config.AgentConfig;
import dev.retryafter.agent.config.PolicyFile;
import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.store.file.FileKnowledgeStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The store the agent makes from its configuration: none in memory, a Redis one living as long as state-max-age. */
class FleetStoresTest {

    private static final String HOST = "127.0.0.1:8080";

    @RegisterExtension
    static final RedisFixture REDIS = new RedisFixture();

    private static AgentConfig config(String text) throws Exception {
        Path file = Files.createTempFile("fleet-stores-", ".properties");
        Files.write(file, text.getBytes());
        return PolicyFile.read(file, Collections.emptyList());
    }

    @Test
    void noStoreKeepsKnowledgeInTheJvm() throws Exception {
        assertNull(FleetStores.create(config("default.max-sleep = 60s\n"), Clock.system(), null, () -> null));
    }

    @Test
    void aHostsKeysLiveAsLongAsTheStateMaxAge() throws Exception {
        AgentConfig config = config("store = redis://127.0.0.1:" + REDIS.server().port() + "\nfleet = ttl\nstate-max-age = 2h\n");
        Clock clock = Clock.system();
        try (RedisKnowledgeStore store = FleetStores.create(config, clock, null, config::policies); Jedis jedis = new Jedis("127.0.0.1", REDIS.server().port())) {
            store.imposeNotBefore(HOST, clock.millis() + 1_000);
            Set<String> keys = jedis.keys("retry-after:{ttl}:*");
            assertFalse(keys.isEmpty(), "the host was written to Redis");
            for (String key : keys) {
                long ttl = jedis.pttl(key);
                assertTrue(ttl > TimeUnit.MINUTES.toMillis(110) && ttl <= TimeUnit.HOURS.toMillis(2), key + " lives " + ttl + " ms");
            }
        }
    }

    @Test
    void withAStateFileTheFileIsThisJvmsCopyUnderTheFleets() throws Exception {
        Path stateFile = Files.createTempDirectory("fleet-stores-").resolve("state");
        AgentConfig config = config("store = redis://127.0.0.1:" + REDIS.server().port() + "\nfleet = file\nstate-file = " + stateFile + "\n");
        Clock clock = Clock.system();
        FileKnowledgeStore state = FileKnowledgeStore.open(stateFile, clock, config.stateFile().maxAgeMillis(), warning -> { });
        long moment = clock.millis() + 60_000;
        try (RedisKnowledgeStore store = FleetStores.create(config, clock, state, config::policies)) {
            store.imposeNotBefore(HOST, moment);
        }
        state.save();
        FileKnowledgeStore reopened = FileKnowledgeStore.open(stateFile, clock, config.stateFile().maxAgeMillis(), warning -> { });
        assertEquals(OptionalLong.of(moment), reopened.read(HOST).notBefore(), "what the fleet store was told is in the state file");
    }
}
