package dev.retryafter.agent.engine.header;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RateLimitHeadersTest {

    /** 2026-11-01T00:00:00Z. */
    private static final long NOW = 1_793_491_200_000L;

    private static RateLimitHint read(String... nameValues) {
        RateLimitHeaders headers = new RateLimitHeaders();
        for (int i = 0; i < nameValues.length; i += 2) {
            headers.offer(nameValues[i], nameValues[i + 1]);
        }
        return headers.hint(NOW);
    }

    @Test
    void xRateLimitWithAResetInDeltaSeconds() {
        RateLimitHint hint = read("X-RateLimit-Limit", "60", "X-RateLimit-Remaining", "12", "X-RateLimit-Reset", "30");
        assertEquals(60, hint.limit);
        assertEquals(12, hint.remaining);
        assertEquals(30_000, hint.resetMillis);
        assertEquals("X-RateLimit-*", hint.source);
    }

    @Test
    void xRateLimitWithAResetAsEpochSecondsOrMilliseconds() {
        assertEquals(90_000, read("x-ratelimit-remaining", "0", "x-ratelimit-reset", Long.toString(NOW / 1000 + 90)).resetMillis);
        assertEquals(1_500, read("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", Long.toString(NOW + 1_500)).resetMillis);
    }

    @Test
    void xRateLimitResetInThePastIsMarked() {
        RateLimitHint hint = read("X-RateLimit-Remaining", "5", "X-RateLimit-Reset", Long.toString(NOW / 1000 - 3600));
        assertTrue(hint.resetInPast);
        assertEquals(0, hint.resetMillis);
    }

    @Test
    void aResetJustPastIsNow() {
        RateLimitHint hint = read("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", Long.toString(NOW / 1000 - 1));
        assertFalse(hint.resetInPast, "rounded to the second, and on its way across it");
        assertEquals(0, hint.resetMillis);
    }

    @Test
    void xRateLimitResetAsAnHttpDate() {
        RateLimitHint hint = read("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "Sun, 01 Nov 2026 00:01:00 GMT");
        assertEquals(60_000, hint.resetMillis);
    }

    @Test
    void theHyphenatedXRateLimitFamily() {
        RateLimitHint hint = read("X-Rate-Limit-Limit", "100", "X-Rate-Limit-Remaining", "3", "X-Rate-Limit-Reset", "2.5");
        assertEquals(3, hint.remaining);
        assertEquals(2_500, hint.resetMillis);
    }

    @Test
    void theOlderDraftsSeparateFields() {
        RateLimitHint hint = read("RateLimit-Limit", "10, 10;w=1, 50;w=60", "RateLimit-Remaining", "4", "RateLimit-Reset", "1");
        assertEquals(10, hint.limit);
        assertEquals(1_000, hint.windowMillis);
        assertEquals(4, hint.remaining);
        assertEquals(1_000, hint.resetMillis);
        assertEquals("RateLimit-*", hint.source);
    }

    @Test
    void theDraftsDictionaryForm() {
        RateLimitHint hint = read("RateLimit", "limit=20, remaining=5, reset=3", "RateLimit-Policy", "20;w=2");
        assertEquals(20, hint.limit);
        assertEquals(5, hint.remaining);
        assertEquals(3_000, hint.resetMillis);
        assertEquals(2_000, hint.windowMillis);
        assertEquals("RateLimit", hint.source);
    }

    @Test
    void theDraftsItemFormTheFewestLeftGoverns() {
        RateLimitHint hint = read("RateLimit", "\"burst\";r=40;t=1, \"daily\";r=7;t=3600",
                "RateLimit-Policy", "\"burst\";q=100;w=60, \"daily\";q=1000;w=86400");
        assertEquals(7, hint.remaining);
        assertEquals(3_600_000, hint.resetMillis);
        assertEquals(100, hint.limit);
        assertEquals(60_000, hint.windowMillis);
    }

    @Test
    void theStructuredFieldIsPreferredToTheOthers() {
        RateLimitHint hint = read("X-RateLimit-Remaining", "99", "X-RateLimit-Reset", "9", "RateLimit", "remaining=1, reset=2");
        assertEquals(1, hint.remaining);
    }

    @Test
    void nothingUsableIsNoHint() {
        assertNull(read());
        assertNull(read("X-RateLimit-Limit", "60"));
        assertNull(read("X-RateLimit-Remaining", "-1"));
        assertNull(read("X-RateLimit-Remaining", "1e3"));
        assertNull(read("RateLimit", "garbage"));
        assertNull(read("RateLimit", ""));
    }

    @Test
    void hugeNumbersSaturateInsteadOfOverflowing() {
        RateLimitHint hint = read("X-RateLimit-Remaining", "99999999999999999999999999", "X-RateLimit-Reset", "99999999999999999999999");
        assertEquals(RateLimitHeaders.MAX, hint.remaining);
        assertTrue(hint.resetMillis > 0);
        assertFalse(hint.resetInPast);
    }

    @Test
    void onlyHintNamesAreKept() {
        assertTrue(RateLimitHeaders.isHint("RateLimit"));
        assertTrue(RateLimitHeaders.isHint("x-ratelimit-reset"));
        assertTrue(RateLimitHeaders.isHint("X-Rate-Limit-Limit"));
        assertFalse(RateLimitHeaders.isHint("Retry-After"));
        assertFalse(RateLimitHeaders.isHint("Content-Type"));
        assertFalse(RateLimitHeaders.isHint(null));
    }

    @Test
    void fuzzedValuesNeverThrowAndNeverGoNegative() {
        Random random = new Random(26);
        String alphabet = "0123456789 ,;=\"-.:eErwtqlimtsaGMT\t";
        String[] names = {"RateLimit", "RateLimit-Policy", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset",
                "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Rate-Limit-Reset"};
        for (int i = 0; i < 50_000; i++) {
            RateLimitHeaders headers = new RateLimitHeaders();
            for (String name : names) {
                if (random.nextBoolean()) {
                    StringBuilder value = new StringBuilder();
                    int length = random.nextInt(30);
                    for (int c = 0; c < length; c++) {
                        value.append(random.nextInt(20) == 0 ? (char) random.nextInt(0x3000) : alphabet.charAt(random.nextInt(alphabet.length())));
                    }
                    headers.offer(name, value.toString());
                }
            }
            RateLimitHint hint = headers.hint(NOW);
            if (hint != null) {
                assertTrue(hint.remaining >= 0, () -> "remaining " + hint);
                assertTrue(hint.resetMillis >= RateLimitHint.UNKNOWN, () -> "reset " + hint);
                assertNotNull(hint.toString());
            }
        }
    }
}
