package dev.retryafter.agent.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StoreSettingsTest {

    private static final String SECRET = "hunter2-s3cret";

    @TempDir
    Path dir;

    private AgentConfig read(String text, Map<String, String> environment) throws Exception {
        Path file = dir.resolve("policies.properties");
        Files.writeString(file, text);
        return PolicyFile.read(file, Collections.emptyList(), environment);
    }

    private ConfigException error(String text, Map<String, String> environment) throws Exception {
        Path file = dir.resolve("policies.properties");
        Files.writeString(file, text);
        ConfigException e = assertThrows(ConfigException.class, () -> PolicyFile.read(file, Collections.emptyList(), environment));
        assertFalse(e.getMessage().contains(SECRET), "never the password: " + e.getMessage());
        return e;
    }

    @Test
    void memoryIsTheDefault() throws Exception {
        AgentConfig config = read("enabled = true\n", Map.of());
        assertFalse(config.store().isShared());
        assertEquals("memory", config.store().toString());
        assertFalse(AgentConfig.defaults().store().isShared());
        assertFalse(read("store = memory\n", Map.of()).store().isShared());
    }

    @Test
    void aFleetOnRedisWithThePasswordFromTheEnvironment() throws Exception {
        AgentConfig config = read("store = redis://scraper@127.0.0.1:6390/3\n"
                + "fleet = county-scrapers\n"
                + "store-password-env = SCRAPER_REDIS_PASSWORD\n"
                + "store-timeout = 80ms\n", Map.of("SCRAPER_REDIS_PASSWORD", SECRET));
        StoreSettings store = config.store();
        assertTrue(store.isShared());
        assertEquals("county-scrapers", store.fleet());
        assertEquals(80, store.timeoutMillis());
        assertEquals(6390, store.redis().port());
        assertEquals(3, store.redis().database());
        assertTrue(store.redis().hasPassword());
        assertEquals("redis://scraper@127.0.0.1:6390/3 fleet county-scrapers", store.toString());
    }

    @Test
    void thePasswordFromAFileWithoutItsNewline() throws Exception {
        Path secret = dir.resolve("redis-password");
        Files.writeString(secret, SECRET + "\n");
        AgentConfig config = read("store = rediss://127.0.0.1:6390\nstore-password-file = " + secret + "\n", Map.of());
        assertTrue(config.store().redis().tls());
        assertTrue(config.store().redis().hasPassword());
        assertEquals("default", config.store().fleet());
        assertFalse(config.store().toString().contains(SECRET));
    }

    @Test
    void theAgentArgumentCanNameTheStore() throws Exception {
        AgentConfig config = AgentArguments.load("store=redis://127.0.0.1:6390,fleet=f1,store-password-env=P",
                Map.of("P", SECRET));
        assertEquals("f1", config.store().fleet());
        assertTrue(config.store().redis().hasPassword());
    }

    @Test
    void hostsOfAPolicyCanStayLocal() throws Exception {
        AgentConfig config = read("store = redis://127.0.0.1:6390\n"
                + "policy.own.hosts = 127.0.0.1:8081\n"
                + "policy.own.share = local\n"
                + "policy.fleet.hosts = 127.0.0.1:8082\n"
                + "policy.fleet.max-concurrency = 2\n", Map.of());
        assertFalse(config.policies().isShared("127.0.0.1", 8081));
        assertTrue(config.policies().isShared("127.0.0.1", 8082));
        assertEquals(2, config.policies().policyFor("127.0.0.1", 8082).maxConcurrency());
        assertTrue(config.policies().isShared("127.0.0.1", 8083), "every other host is the fleet's");
        AgentConfig allLocal = read("store = redis://127.0.0.1:6390\ndefault.share = local\n"
                + "policy.shared.hosts = 127.0.0.1:8082\npolicy.shared.share = fleet\n", Map.of());
        assertFalse(allLocal.policies().isShared("127.0.0.1", 8083));
        assertTrue(allLocal.policies().isShared("127.0.0.1", 8082));
    }

    @Test
    void mistakesNameTheLineAndNeverThePassword() throws Exception {
        assertEquals(1, error("store = redis://u:" + SECRET + "@127.0.0.1\n", Map.of()).line());
        assertEquals(1, error("store = http://u:" + SECRET + "@127.0.0.1:1\n", Map.of()).line());
        ConfigException unset = error("store = redis://127.0.0.1:6390\nstore-password-env = NOPE\n", Map.of());
        assertEquals(2, unset.line());
        assertTrue(unset.getMessage().contains("NOPE"), unset.getMessage());
        ConfigException twice = error("store = redis://u:" + SECRET + "@127.0.0.1:6390\nstore-password-env = P\n",
                Map.of("P", SECRET));
        assertTrue(twice.getMessage().contains("one place"), twice.getMessage());
        assertEquals(2, error("store = redis://127.0.0.1:6390\nstore-password-file = " + dir.resolve("missing") + "\n",
                Map.of()).line());
        assertEquals(2, error("store = redis://127.0.0.1:6390\nfleet = {tag}\n", Map.of()).line());
        assertEquals(2, error("store = redis://127.0.0.1:6390\nstore-timeout = 5m\n", Map.of()).line());
        assertEquals(1, error("fleet = f1\n", Map.of()).line(), "a fleet without a store is a mistake, not ignored");
        assertEquals(2, error("policy.p.hosts = h\npolicy.p.share = nobody\n", Map.of()).line());
        assertTrue(error("stor = redis://127.0.0.1:6390\n", Map.of()).getMessage().contains("did you mean store?"));
    }
}
