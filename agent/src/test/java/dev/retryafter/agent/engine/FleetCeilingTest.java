package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.knowledge.HostKnowledge;
import dev.retryafter.agent.engine.knowledge.InMemoryKnowledgeStore;
import dev.retryafter.agent.engine.knowledge.KnowledgeStore;

import dev.retryafter.agent.testing.VirtualClock;
import org.junit.jupiter.api.Test;

import java.util.OptionalInt;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Engines that share one knowledge store, as a fleet's JVMs share Redis, in virtual time: the
 * ceiling a refusal teaches is what the portal let all of them have, not the refused engine's share.
 * Before the store counted successes, each engine read the ceiling from its own.
 */
class FleetCeilingTest {

    static final String HOST = "portal.example";
    static final String KEY = "portal.example:443";
    static final Policy POLICY = Policy.builder().windowMillis(2_000).minSleepMillis(300).maxSleepMillis(3_000).build();

    final VirtualClock clock = new VirtualClock();
    final KnowledgeStore shared = new InMemoryKnowledgeStore();
    final RetryEngine a = engine(shared, 1);
    final RetryEngine b = engine(shared, 2);

    RetryEngine engine(KnowledgeStore store, long seed) {
        return RetryEngine.builder().clock(clock).sleeper(clock).random(new Random(seed)::nextDouble)
                .policies(PolicyLookup.everyHost(POLICY)).knowledge(store).build();
    }

    /** One request from {@code engine}, answered {@code status} 10 ms later. */
    void send(RetryEngine engine, int status) throws Exception {
        answered(engine, status, status == 200 ? null : "0");
    }

    /** One request, answered 10 ms after it went with {@code status} and {@code retryAfter}. */
    private Call answered(RetryEngine engine, int status, String retryAfter) throws Exception {
        Call call = engine.open(HOST, 443, true);
        call.awaitTurn();
        clock.advance(10);
        call.onResponse(status, retryAfter);
        call.endAttempt();
        return call;
    }

    @Test
    void theCeilingARefusalTeachesCountsEveryEngineSharingTheStore() throws Exception {
        for (int i = 0; i < 20; i++) {
            send(i % 5 < 2 ? a : b, 200); // 8 through a, 12 through b: the portal's 20 in the window
        }
        send(b, 429);
        HostKnowledge known = shared.read(KEY);
        assertEquals(OptionalInt.of(20), known.learnedCeiling(), "the fleet's 20, not b's 12");
        assertEquals(10.0, known.pace().get().refusedRatePerSecond(), 1e-9, "20 per 2 s refused: paced from there");
        assertEquals(OptionalInt.of(20), a.hosts().iterator().next().snapshot(clock.millis()).learnedCeiling(),
                "a, which was not refused, reports the fleet's ceiling too");
    }

    @Test
    void aCeilingIsCountedFromTheFleetsPreviousRefusalWhicheverEngineSawIt() throws Exception {
        for (int i = 0; i < 20; i++) {
            send(a, 200);
        }
        send(a, 429); // the streak's first refusal: a ceiling of 20, a pace of 8 a second
        clock.advance(400);
        for (int i = 0; i < 7; i++) {
            send(i % 2 == 0 ? b : a, 200); // the first ends the streak
        }
        clock.advance(100);
        long sinceFirst = clock.millis() - shared.read(KEY).paceLearnedAt().getAsLong();
        assertTrue(sinceFirst < POLICY.windowMillis(), "the setup: b's refusal comes within the window of a's, " + sinceFirst + " ms");
        send(b, 429); // 7 since a's refusal, by both engines; 27 in the window
        assertEquals(OptionalInt.of(7), shared.read(KEY).learnedCeiling(), "counted since a's refusal, over a's and b's successes");
    }

    @Test
    void enginesWithStoresOfTheirOwnStillLearnOnlyTheirOwnShare() throws Exception {
        KnowledgeStore mine = new InMemoryKnowledgeStore();
        RetryEngine alone = engine(mine, 3);
        for (int i = 0; i < 5; i++) {
            send(a, 200);
            send(alone, 200);
        }
        send(alone, 429);
        assertEquals(OptionalInt.of(5), mine.read(KEY).learnedCeiling(), "a store counts the successes of the engines that use it");
    }

    /**
     * Requests of three engines in flight together, all refused: one refusal and two echoes. Counted
     * as three in a row, the third backed off as after a third refusal (up to four times as long),
     * and the fleet's shared wait with it.
     */
    @Test
    void echoesOfRequestsInFlightTogetherDoNotRaiseTheBackoff() throws Exception {
        RetryEngine c = engine(shared, 3);
        java.util.List<Call> calls = new java.util.ArrayList<>();
        for (RetryEngine engine : java.util.Arrays.asList(a, b, c)) {
            Call call = engine.open(HOST, 443, true);
            call.awaitTurn();
            calls.add(call);
        }
        clock.advance(10);
        long longest = 0;
        for (Call call : calls) {
            call.onResponse(429, "0");
            call.endAttempt();
            longest = Math.max(longest, call.lastDecision().waitBeforeNextRequest().millis());
        }
        assertEquals(3, shared.read(KEY).openStreak().get().refusals(), "every refusal is counted into the streak");
        long bound = Math.max(POLICY.minSleepMillis(), POLICY.backoffBaseMillis());
        assertTrue(longest <= bound, "no wait longer than a first refusal's backoff: " + longest + " ms");
    }

    /**
     * Three engines' requests refused together (one refusal, two echoes), then the first engine's
     * retry, sent once the fleet's wait has ended, refused too: the portal's window is still full.
     * The streak now counts four, and its backoff (bound 4 s, jittered high here) was cut to
     * max-sleep, 3 s, which passed the portal's next window; it now ends when the streak is a window
     * old, by when a limit counted per window has room again.
     */
    @Test
    void aRetryRefusedWithinTheStreaksFirstWindowWaitsNoLongerThanThatWindowsEnd() throws Exception {
        long start = refuseThreeTogetherThenRetry(900);
        Call retried = retry;
        long wait = retried.lastDecision().waitBeforeNextRequest().millis();
        long windowLeft = start + POLICY.windowMillis() - clock.millis();
        assertEquals(4, shared.read(KEY).openStreak().get().refusals(), "the setup: four in the fleet's streak");
        assertTrue(windowLeft > POLICY.minSleepMillis(), "the setup: refused well within the window, " + windowLeft + " ms left");
        assertEquals(windowLeft, wait, "the wait ends with the streak's first window");
    }

    /** Once the streak is older than a window, the backoff is the streak count's, as before. */
    @Test
    void aRefusalAfterTheStreaksFirstWindowBacksOffByTheStreaksCount() throws Exception {
        refuseThreeTogetherThenRetry(POLICY.windowMillis() + 100);
        long wait = retry.lastDecision().waitBeforeNextRequest().millis();
        assertEquals(POLICY.maxSleepMillis(), wait, "the fourth refusal's backoff, 0.99 of 4 s, cut to max-sleep");
    }

    private Call retry;

    /** Returns when the streak began; {@link #retry} is the first engine's call, refused again {@code laterMillis} after. */
    private long refuseThreeTogetherThenRetry(long laterMillis) throws Exception {
        java.util.List<Call> calls = new java.util.ArrayList<>();
        for (long seed = 4; seed <= 6; seed++) {
            RetryEngine engine = RetryEngine.builder().clock(clock).sleeper(clock).random(() -> 0.99)
                    .policies(PolicyLookup.everyHost(POLICY)).knowledge(shared).build();
            Call call = engine.open(HOST, 443, true);
            call.awaitTurn();
            calls.add(call);
        }
        clock.advance(10);
        long start = clock.millis();
        for (Call call : calls) {
            call.onResponse(429, "0");
            call.endAttempt();
        }
        retry = calls.get(0);
        retry.awaitTurn(); // waits out the fleet's wait, in virtual time
        clock.advance(Math.max(0, start + laterMillis - clock.millis()));
        retry.onResponse(429, "0");
        retry.endAttempt();
        return start;
    }

    /**
     * An unproven 3600 from three engines' burst: max(header, backoff), cut to max-sleep (3 s), which
     * passed the portal's next window. The header is not obeyed anyway; the wait it was cut to now ends
     * with the streak's first window.
     */
    @Test
    void anUnprovenHeaderBeyondMaxSleepWaitsNoLongerThanTheStreaksFirstWindow() throws Exception {
        Call call = answered(a, 429, "3600");
        Wait wait = call.lastDecision().waitBeforeNextRequest();
        assertTrue(wait.millis() <= POLICY.windowMillis(), "no later than the window's end, not max-sleep: " + wait);
        assertEquals(Reason.UNPROVEN_HEADER_BEYOND_CEILING, wait.reason(), "not waited on: own backoff");
    }

    /** A header within max-sleep from a host not proven truthful is a hint the agent takes, window or not. */
    @Test
    void anUnprovenHeaderWithinMaxSleepIsStillTakenAsAHint() throws Exception {
        Call call = answered(a, 429, "3");
        assertEquals(3_000, call.lastDecision().waitBeforeNextRequest().millis(), "the header's 3 s, past the window's end");
    }
}
