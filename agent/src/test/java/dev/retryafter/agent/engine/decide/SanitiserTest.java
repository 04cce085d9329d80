package dev.retryafter.agent.engine.decide;

import dev.retryafter.agent.engine.Category;
import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.engine.Reason;
import dev.retryafter.agent.engine.Wait;

import dev.retryafter.agent.engine.header.RetryAfter;
import dev.retryafter.agent.engine.header.RetryAfterParser;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SanitiserTest {

    private static final Policy POLICY = Policy.DEFAULTS; // 1 s floor, 300 s ceiling

    private static RetryAfter header(long seconds) {
        return RetryAfterParser.parse(Long.toString(seconds), 0);
    }

    private static final RetryAfter NONE = RetryAfterParser.parse(null, 0);

    // The guide's own tests, in milliseconds.

    @Test
    void zeroNeverBecomesAHotLoop() {
        Wait wait = Sanitiser.sanitise(POLICY, Category.ALWAYS_ZERO, header(0), 4_000);
        assertTrue(wait.millis() >= POLICY.minSleepMillis());
        assertTrue(wait.explanation().contains("ignored"), wait.explanation());
    }

    @Test
    void overstatedHeaderIsClamped() {
        Wait wait = Sanitiser.sanitise(POLICY, Category.CONSTANT_OVERSTATED, header(3600), 4_000);
        assertTrue(wait.millis() <= POLICY.maxSleepMillis() && wait.millis() < 3_600_000);
    }

    @Test
    void truthfulHeaderIsHonoured() {
        Wait wait = Sanitiser.sanitise(POLICY, Category.TRUTHFUL, header(45), 2_000);
        assertEquals(45_000, wait.millis());
        assertTrue(wait.explanation().contains("truthful"), wait.explanation());
    }

    @Test
    void unreliableTakesTheLargerValue() {
        assertEquals(12_000, Sanitiser.sanitise(POLICY, Category.UNRELIABLE, header(3), 12_000).millis());
        assertEquals(30_000, Sanitiser.sanitise(POLICY, Category.UNRELIABLE, header(30), 4_000).millis());
    }

    // Beyond the guide.

    @Test
    void anUnknownHostIsTreatedAsUnreliable() {
        assertEquals(12_000, Sanitiser.sanitise(POLICY, Category.UNKNOWN, header(3), 12_000).millis());
        assertEquals(Reason.HEADER_AS_HINT, Sanitiser.sanitise(POLICY, Category.UNKNOWN, header(30), 4_000).reason());
    }

    @Test
    void backoffNeverGoesUnderTheFloor() {
        Wait wait = Sanitiser.sanitise(POLICY, Category.ABSENT, NONE, 3);
        assertEquals(POLICY.minSleepMillis(), wait.millis());
        assertEquals(Reason.NO_HEADER, wait.reason());
        assertEquals(Wait.Bound.FLOOR, wait.bound());
    }

    @Test
    void aTruthfulHeaderUnderTheFloorIsRaisedToIt() {
        Wait wait = Sanitiser.sanitise(POLICY, Category.TRUTHFUL, header(0), 10_000);
        assertEquals(1_000, wait.millis());
        assertEquals(Wait.Bound.FLOOR, wait.bound());
    }

    @Test
    void aTruthfulHeaderOverTheCeilingIsCutToIt() {
        Wait wait = Sanitiser.sanitise(POLICY, Category.TRUTHFUL, header(3600), 10_000);
        assertEquals(300_000, wait.millis());
        assertEquals(Reason.HEADER_BEYOND_CEILING, wait.reason());
        assertEquals(Wait.Bound.CEILING, wait.bound());
    }

    @Test
    void anUnusableHeaderIsNamedAsSuch() {
        Wait wait = Sanitiser.sanitise(POLICY, Category.TRUTHFUL, RetryAfterParser.parse("banana", 0), 2_500);
        assertEquals(2_500, wait.millis());
        assertEquals(Reason.UNUSABLE_HEADER, wait.reason());
    }

    @Test
    void alwaysZeroIgnoresEvenANonZeroHeader() {
        Wait wait = Sanitiser.sanitise(POLICY, Category.ALWAYS_ZERO, header(50), 2_000);
        assertEquals(2_000, wait.millis());
    }

    @Test
    void everyPathStaysWithinFloorAndCeiling() {
        Policy policy = Policy.builder().minSleepMillis(700).maxSleepMillis(9_000).build();
        Random random = new Random(5);
        String[] headers = {null, "", "0", "1", "8", "9", "10", "3600", "99999999999999999999", "banana",
                "Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 2994 08:49:37 GMT"};
        for (int i = 0; i < 50_000; i++) {
            Category category = Category.values()[random.nextInt(Category.values().length)];
            RetryAfter header = RetryAfterParser.parse(headers[random.nextInt(headers.length)], 0);
            long backoff = Backoff.fullJitter(1 + random.nextInt(70), random.nextDouble(), 500, Long.MAX_VALUE / 3);
            long millis = Sanitiser.sanitise(policy, category, header, backoff).millis();
            assertTrue(millis >= 700 && millis <= 9_000, category + " " + header + " backoff " + backoff + " -> " + millis);
        }
    }

    @Test
    void fullJitterIsUniformUpToTheDoubledBase() {
        assertEquals(0, Backoff.fullJitter(1, 0.0, 500, 60_000));
        assertEquals(250, Backoff.fullJitter(1, 0.5, 500, 60_000));
        assertEquals(1_500, Backoff.fullJitter(3, 0.75, 500, 60_000));   // bound 2000
        assertEquals(30_000, Backoff.fullJitter(30, 0.5, 500, 60_000));  // capped at 60 s
        assertEquals(60_000, Backoff.bound(Integer.MAX_VALUE, 500, 60_000));
        assertEquals(Long.MAX_VALUE / 3, Backoff.bound(200, 500, Long.MAX_VALUE / 3), "no overflow past 62 doublings");
    }
}
