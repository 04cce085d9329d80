package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.decide.Decide;
import dev.retryafter.agent.engine.knowledge.OpenStreak;

import dev.retryafter.agent.engine.header.RetryAfter;
import dev.retryafter.agent.engine.header.RetryAfterParser;
import dev.retryafter.agent.testing.RecordingListener;
import dev.retryafter.agent.testing.VirtualClock;
import dev.retryafter.agent.testing.VirtualScheduler;
import org.junit.jupiter.api.Test;

import java.util.OptionalLong;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A streak whose window is neither learned nor configured looks for the window's end in waits of at most
 * half its age, and none ends past the policy's default window while the streak is younger
 * ({@link Decide#searchedWindowLeft}): where a request's last tries wait, whoever's tries the refusals were.
 */
class SearchedWindowTest {

    private static final Policy DEFAULTS = Policy.DEFAULTS;
    private static final long UNKNOWN = 0;
    private static final long STREAK_START = 1_000_000;
    private static final RetryAfter ZERO = RetryAfterParser.parse("0", STREAK_START);

    /** A request on its second try, refused {@code age} into the host's first streak; its backoff was 28 s. */
    private static Wait refusedAt(long age) {
        return refusedAt(age, 28_000);
    }

    private static Wait refusedAt(long age, long backoffMillis) {
        OpenStreak streak = OpenStreak.of(STREAK_START, OptionalLong.of(0), STREAK_START + age, 17, false);
        Wait backoff = new Wait(backoffMillis, Reason.HEADER_AS_HINT, Wait.Bound.NONE);
        return Decide.withinFirstWindow(DEFAULTS, UNKNOWN, DEFAULTS.maxAttempts() - 2, Category.UNKNOWN, ZERO, streak,
                STREAK_START + age, backoff);
    }

    @Test
    void earlyInTheStreakAWaitIsAtMostHalfItsAge() {
        Wait wait = refusedAt(10_000);
        assertEquals(5_000, wait.millis());
        assertEquals(Wait.Bound.WINDOW, wait.bound());
    }

    @Test
    void earlyInTheStreakAShortWaitIsRaisedToHalfItsAge() {
        Wait wait = refusedAt(10_000, 1_200);
        assertEquals(5_000, wait.millis(), "a backoff drawn short would spend the tries of several workers in the first seconds");
        assertEquals(Wait.Bound.SEARCH, wait.bound());
        assertEquals(DEFAULTS.minSleepMillis(), refusedAt(400, 100).millis(), "min-sleep while the streak is young");
    }

    @Test
    void theSearchNeverWaitsPastMaxSleep() {
        Policy shortSleeps = Policy.builder().name("short").minSleepMillis(300).maxSleepMillis(400).backoffBaseMillis(300).backoffCapMillis(400).build();
        OpenStreak streak = OpenStreak.of(STREAK_START, OptionalLong.of(0), STREAK_START + 20_000, 9, false);
        Wait wait = Decide.withinFirstWindow(shortSleeps, UNKNOWN, shortSleeps.maxAttempts() - 2, Category.UNKNOWN, ZERO, streak,
                STREAK_START + 20_000, new Wait(350, Reason.HEADER_AS_HINT, Wait.Bound.NONE));
        assertEquals(400, wait.millis(), "half of a 20 s streak is 10 s, but max-sleep is 400 ms");
    }

    @Test
    void nearTheDefaultWindowsEndAWaitEndsThere() {
        long age = 56_300;
        Wait wait = refusedAt(age);
        assertEquals(DEFAULTS.windowMillis() - age, wait.millis(), "half the age, 28.15 s, would pass the 60 s end by 24 s");
        assertEquals(Wait.Bound.WINDOW, wait.bound());
        assertEquals(DEFAULTS.minSleepMillis(), refusedAt(DEFAULTS.windowMillis() - 200).millis(), "never under min-sleep");
    }

    @Test
    void pastTheDefaultWindowHalfTheAgeStands() {
        assertEquals(28_000, refusedAt(70_000).millis(), "half of 70 s is more than the backoff: the backoff stands");
        assertEquals(DEFAULTS.maxSleepMillis(), Decide.searchedWindowLeft(DEFAULTS, 2 * DEFAULTS.maxSleepMillis()));
    }

    private final VirtualClock clock = new VirtualClock();
    private final VirtualScheduler scheduler = new VirtualScheduler(clock);
    private final RetryEngine engine = RetryEngine.builder().clock(clock).sleeper(clock).delays(scheduler)
            .random(new Random(7)::nextDouble).listener(new RecordingListener()).policies(PolicyLookup.everyHost(DEFAULTS)).build();
    private FixedWindowPortal portal = new FixedWindowPortal(60, 60_000, clock.millis() + 50);

    /**
     * A fixed window of 60 a minute that answers {@code Retry-After: 0}, eight workers, 50 ms a request: every
     * request in flight when the limit is reached is refused, and the retries that follow are each some
     * record's second or third try, so no request reaches the last tries that wait for the default window.
     * The host's first streak still ends with that window, and the first period is read as about a minute.
     */
    @Test
    void eightWorkersFirstStreakEndsWithTheDefaultWindow() {
        for (int w = 0; w < 8; w++) {
            scheduler.at(clock.millis() + w, this::fetch);
        }
        scheduler.run(clock.millis() + 90_000);

        assertTrue(portal.refusals >= 8, "the setup: eight in flight refused together, then retries: " + portal.refusals);
        long streak = portal.firstAdmittedAfterRefusal - portal.firstRefusedAt;
        assertTrue(portal.firstAdmittedAfterRefusal > 0 && streak <= DEFAULTS.windowMillis() + 50,
                "the first streak ends by its default window's end, " + streak + " ms after it began");
        HostSnapshot host = engine.hosts().iterator().next().snapshot(clock.millis());
        assertTrue(Math.abs(host.windowMillis - 60_000) <= 2_000, "the first period is about a minute: " + host.windowMillis);
        assertTrue(host.pacePerMinute() >= 0.9 * 60, "paced near the limit, not as 60 in 86 s: " + host.pacePerMinute());
    }

    /**
     * 100 per 10 s, four workers: the search's steps of half the streak's age went at 8.8 and 13.2 s, and the first
     * period read 100 in 13.3 s. A step that ends a little before a round window's end (10 s from the first
     * request) waits for it ({@link Decide#withinFirstWindow}), and the first period reads about 10 s.
     */
    @Test
    void fourWorkersFindATenSecondWindowAtItsEnd() {
        portal = new FixedWindowPortal(100, 10_000, clock.millis() + 50);
        for (int w = 0; w < 4; w++) {
            scheduler.at(clock.millis() + w, this::fetch);
        }
        scheduler.run(clock.millis() + 40_000);

        HostSnapshot host = engine.hosts().iterator().next().snapshot(clock.millis());
        assertTrue(host.windowMillis >= 10_000 && host.windowMillis <= 10_600, "the first period is about 10 s: " + host.windowMillis);
        assertEquals(0, host.gaveUp);
    }

    /** A worker takes the next record; each is retried as the engine decides, 50 ms a request. */
    private void fetch() {
        attempt(engine.open("portal.example", 443, true));
    }

    private void attempt(Call call) {
        call.turn().thenRun(() -> scheduler.at(clock.millis() + 50, () -> {
            boolean admitted = portal.admit(clock.millis());
            boolean retry = call.onResponse(admitted ? 200 : 429, admitted ? null : "0");
            call.endAttempt();
            if (retry) {
                attempt(call);
            } else {
                fetch();
            }
        }));
    }

    /** Fixed windows counted from the first request; refused requests do not count. */
    private static final class FixedWindowPortal {
        private final int limit;
        private final long windowMillis;
        private final long origin;
        private long windowIndex;
        private int used;
        int refusals;
        long firstRefusedAt = -1;
        long firstAdmittedAfterRefusal = -1;

        FixedWindowPortal(int limit, long windowMillis, long origin) {
            this.limit = limit;
            this.windowMillis = windowMillis;
            this.origin = origin;
        }

        boolean admit(long now) {
            long index = (now - origin) / windowMillis;
            if (index != windowIndex) {
                windowIndex = index;
                used = 0;
            }
            boolean admitted = used < limit;
            if (admitted) {
                used++;
                if (firstRefusedAt >= 0 && firstAdmittedAfterRefusal < 0) {
                    firstAdmittedAfterRefusal = now;
                }
            } else {
                refusals++;
                if (firstRefusedAt < 0) {
                    firstRefusedAt = now;
                }
            }
            return admitted;
        }
    }
}
