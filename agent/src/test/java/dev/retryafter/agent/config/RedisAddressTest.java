package dev.retryafter.agent.config;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RedisAddressTest {

    @Test
    void readsEveryPartAndShowsAllButThePassword() {
        RedisAddress a = RedisAddress.parse("redis://scraper:p%40ss:w0rd@redis.internal:6380/2");
        assertFalse(a.tls());
        assertEquals("scraper", a.user());
        assertEquals("p@ss:w0rd", a.password());
        assertEquals("redis.internal", a.host());
        assertEquals(6380, a.port());
        assertEquals(2, a.database());
        assertEquals("redis://scraper@redis.internal:6380/2", a.toString());
    }

    @Test
    void tlsPasswordOnlyAndDefaults() {
        RedisAddress a = RedisAddress.parse("rediss://:secret@127.0.0.1:6379");
        assertTrue(a.tls());
        assertNull(a.user());
        assertTrue(a.hasPassword());
        assertEquals(0, a.database());
        assertEquals("rediss://127.0.0.1:6379", a.toString());
        RedisAddress v6 = RedisAddress.parse("redis://[::1]:6379/");
        assertEquals("::1", v6.host());
        assertEquals("redis://[::1]:6379", v6.toString());
        assertFalse(RedisAddress.parse("redis://h:1").hasPassword());
        assertEquals("from-env", RedisAddress.parse("redis://u@h:1").withPassword("from-env").password());
    }

    @Test
    void mistakesAreNamedWithoutRepeatingTheText() {
        for (String text : new String[] {"http://u:hunter2@h:1", "redis://u:hunter2@h", "redis://u:hunter2@h:port",
                "redis://u:hunter2@h:70000", "redis://u:hunter2@h:1/db", "redis://u:hunter2%zz@h:1", "redis://u:hunter2@:1"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RedisAddress.parse(text), text);
            assertFalse(e.getMessage().contains("hunter2"), "the password stays out of the message: " + e.getMessage());
        }
    }
}
