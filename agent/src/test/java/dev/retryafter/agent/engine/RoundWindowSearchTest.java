package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.decide.Decide;
import dev.retryafter.agent.engine.header.RetryAfterParser;
import dev.retryafter.agent.engine.knowledge.OpenStreak;

import org.junit.jupiter.api.Test;

import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A request alone in the host's first streak, whose tries are the whole search for the window's end, spends its
 * third on the end of the shortest window of a length portals configure that has not ended yet, counted from
 * the first period's start, and its second-last on such an end near where it would go ({@link Decide#withinFirstWindow}).
 */
class RoundWindowSearchTest {

    private static final Policy DEFAULTS = Policy.DEFAULTS;

    /**
     * 100 per 10 s, filled by one worker in 5 s: refused at 5 and 6 s, its third try goes at 10 s and is let
     * through. Going on the streak's age, it went at 7 s and then at 24.6 s, and the first period read 100 in 24.6 s.
     */
    @Test
    void oneWorkerFindsATenSecondWindowAtItsEnd() throws Exception {
        HostSnapshot host = fetched(100, 10_000, 110, 0);
        assertAbout(10_000, host.windowMillis);
        assertEquals(0, host.gaveUp);
    }

    /**
     * A cold client's first request leaves 400 ms after the agent let it go, and the portal's window begins when
     * it arrives: the ends are counted from there (the first answer less a round trip), not from the agent's moment,
     * or the third try arrives 400 ms before the reset and is refused.
     */
    @Test
    void aColdClientsLateFirstRequestMovesTheEndsWithIt() throws Exception {
        HostSnapshot host = fetched(100, 10_000, 110, 400);
        assertAbout(10_000, host.windowMillis);
        assertEquals(2, host.refusals, "refused at 5.45 and 6.5 s, and the third try let through at 10.45 s");
    }

    /**
     * 40 per 20 s, filled in 2 s: refused at 2, 3 and 5 s (the third try at the 5 s end), its second-last try, two
     * thirds of the way to the default window on a log scale (about 24 s), goes at the 20 s end instead.
     */
    @Test
    void theSecondLastTryGoesAtARoundEndNearWhereItWouldGo() throws Exception {
        HostSnapshot host = fetched(40, 20_000, 45, 0);
        assertAbout(20_000, host.windowMillis);
        assertEquals(3, host.refusals, "refused at 2, 3 and 5 s, and the fourth try let through at 20 s");
        assertEquals(0, host.gaveUp);
    }

    /**
     * With three attempts the first refusal leaves two tries, the last two, whose rule has nothing to say at the streak's
     * first moment: the second try goes at min-sleep, not at a round end 3 s away.
     */
    @Test
    void aRequestWithThreeAttemptsSendsItsSecondTryAtMinSleep() {
        Policy three = Policy.builder().name("three").maxAttempts(3).build();
        long start = 1_000_000;
        OpenStreak streak = OpenStreak.of(start, OptionalLong.of(0), start, 1, false);
        Wait wait = Decide.withinFirstWindow(three, 0, 2, Category.UNKNOWN, RetryAfterParser.parse("0", start), streak, start,
                new Wait(300, Reason.HEADER_AS_HINT, Wait.Bound.NONE), start - 7_000);
        assertEquals(three.minSleepMillis(), wait.millis(), wait::toString);
    }

    /**
     * One worker fetches {@code records} from a fixed window of {@code limit} per {@code windowMillis}, its first request
     * leaving {@code firstLateMillis} late and the window beginning when it arrives (50 ms on): the host as it ends.
     */
    private static HostSnapshot fetched(int limit, long windowMillis, int records, long firstLateMillis) throws Exception {
        EngineFixture fixture = new EngineFixture(DEFAULTS);
        new FixedWindowPortal(limit, windowMillis, fixture.clock.millis() + (firstLateMillis > 0 ? firstLateMillis + 50 : 0))
                .fetch(fixture, records, now -> "0", firstLateMillis);
        return fixture.host().snapshot(fixture.clock.millis());
    }

    /** The first period was read as {@code windowMillis}, found at its end (within 0.6 s). */
    private static void assertAbout(long windowMillis, long learned) {
        assertTrue(learned >= windowMillis && learned <= windowMillis + 600, "the first period is about " + windowMillis + " ms: " + learned);
    }
}
