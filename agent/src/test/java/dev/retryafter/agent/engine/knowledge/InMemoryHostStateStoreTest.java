package dev.retryafter.agent.engine.knowledge;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.Category;
import dev.retryafter.agent.engine.Decision;
import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.engine.PolicyLookup;
import dev.retryafter.agent.engine.RetryEngine;

import dev.retryafter.agent.testing.VirtualClock;
import dev.retryafter.agent.testing.VirtualScheduler;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class InMemoryHostStateStoreTest {

    @Test
    void theLeastRecentlyUsedIdleHostsAreDroppedPastTheBound() throws Exception {
        VirtualClock clock = new VirtualClock();
        InMemoryHostStateStore store = new InMemoryHostStateStore(100, clock);
        RetryEngine engine = RetryEngine.builder().clock(clock).sleeper(clock).store(store).build();

        Call busy = engine.open("host-0.example", 80, true);
        busy.awaitTurn(); // in flight: must survive
        HostState kept = busy.host();
        for (int i = 1; i < 1_000; i++) {
            clock.advance(1);
            Call call = engine.open("host-" + i + ".example", 80, true);
            call.awaitTurn();
            call.onResponse(200, null);
            call.endAttempt();
        }
        assertTrue(store.size() <= 100, "bounded: " + store.size());
        assertSame(kept, engine.open("host-0.example", 80, true).host(), "a host with a request in flight is kept");
        assertTrue(store.hosts().stream().anyMatch(h -> h.key().equals("host-999.example:80")), "the newest is kept");
        assertTrue(store.hosts().stream().noneMatch(h -> h.key().equals("host-1.example:80")), "the oldest idle one went");
    }

    @Test
    void aHeldHostIsNeverDropped() throws Exception {
        VirtualClock clock = new VirtualClock();
        InMemoryHostStateStore store = new InMemoryHostStateStore(10, clock);
        RetryEngine engine = RetryEngine.builder().clock(clock).sleeper(clock).store(store)
                .policies(PolicyLookup.everyHost(Policy.builder().maxSleepMillis(10_000).pinnedCategory(Category.TRUTHFUL).build()))
                .build();
        Call call = engine.open("held.example", 443, true);
        call.awaitTurn();
        call.onResponse(429, "3600");
        call.endAttempt();
        call.awaitTurn();
        call.onResponse(429, "3590");
        call.endAttempt();
        assertEquals(Decision.Outcome.HOLD, call.lastDecision().outcome());
        for (int i = 0; i < 100; i++) {
            Call other = engine.open("other-" + i + ".example", 443, true);
            other.awaitTurn();
            other.endAttempt();
        }
        assertSame(call.host(), engine.open("held.example", 443, true).host());
    }

    /** Issue 9, item 3: a call opened before its host was dropped must not end up with a second state for it. */
    @Test
    void aCallOpenedBeforeItsHostWasDroppedSharesTheHostsOneState() throws Exception {
        VirtualClock clock = new VirtualClock();
        VirtualScheduler scheduler = new VirtualScheduler(clock);
        InMemoryHostStateStore store = new InMemoryHostStateStore(2, clock);
        RetryEngine engine = RetryEngine.builder().clock(clock).sleeper(clock).delays(scheduler).store(store)
                .policies(PolicyLookup.everyHost(Policy.builder().maxConcurrency(1).build())).build();
        Call opened = engine.open("portal.example", 443, true);
        opened.host(); // an adapter may name the host before the call takes its permit
        for (int i = 0; i < 5; i++) {
            clock.advance(1);
            Call other = engine.open("other-" + i + ".example", 443, true);
            other.awaitTurn();
            other.onResponse(200, null);
            other.endAttempt();
        }
        opened.awaitTurn();                                   // in flight now, under the cap of 1
        Call next = engine.open("portal.example", 443, true);
        CompletableFuture<Void> nextTurn = next.turn();
        assertFalse(nextTurn.isDone(), "a second request in flight on a host capped at 1");
        assertTrue(opened.onResponse(429, "120"));
        opened.endAttempt();
        long refusedAt = clock.millis();
        scheduler.run(Long.MAX_VALUE);
        assertTrue(nextTurn.isDone());
        assertTrue(clock.millis() >= refusedAt + 120_000, "went " + (clock.millis() - refusedAt) + " ms after a Retry-After: 120");
        assertSame(opened.host(), next.host(), "one state for one host");
        next.endAttempt();
    }

    /** Issue 9, item 4: when every tracked host owes a wait, a new host is still governed. */
    @Test
    void aFullStoreOfHostsOwedWaitsStillGovernsANewHost() throws Exception {
        VirtualClock clock = new VirtualClock();
        VirtualScheduler scheduler = new VirtualScheduler(clock);
        InMemoryHostStateStore store = new InMemoryHostStateStore(10, clock);
        RetryEngine engine = RetryEngine.builder().clock(clock).sleeper(clock).delays(scheduler).store(store)
                .policies(PolicyLookup.everyHost(Policy.builder().maxConcurrency(1).build())).build();
        for (int i = 0; i < 10; i++) {
            Call refused = engine.open("refused-" + i + ".example", 443, true);
            refused.awaitTurn();
            refused.onResponse(429, "300");
            refused.endAttempt();
        }
        Call first = engine.open("new.example", 443, true);
        first.awaitTurn();
        Call second = engine.open("new.example", 443, true);
        CompletableFuture<Void> secondTurn = second.turn();
        assertFalse(secondTurn.isDone(), "two requests in flight on a host capped at 1");
        assertTrue(first.onResponse(429, "5"));
        first.endAttempt();
        long refusedAt = clock.millis();
        Call third = engine.open("new.example", 443, true);
        CompletableFuture<Void> thirdTurn = third.turn();
        scheduler.run(refusedAt + 4_999);
        assertFalse(secondTurn.isDone() || thirdTurn.isDone(), "a request 0 ms after its 429 asked for 5 s");
        scheduler.run(Long.MAX_VALUE);
        assertTrue(secondTurn.isDone());
        second.endAttempt();
        assertTrue(thirdTurn.isDone());
        third.endAttempt();
        assertTrue(store.size() > 10, "the store grew past its bound rather than forget a wait: " + store.size());
    }

    /** Issue 9, item 4: eviction costs a bounded amount of work per new host, even when nothing can be dropped. */
    @Test
    void evictionLooksAtAFewHostsPerNewHostNeverAtAllOfThem() throws Exception {
        VirtualClock clock = new VirtualClock();
        InMemoryHostStateStore store = new InMemoryHostStateStore(1_000, clock);
        RetryEngine engine = RetryEngine.builder().clock(clock).sleeper(clock).store(store).build();
        int hosts = 5_000;
        for (int i = 0; i < hosts; i++) {
            Call refused = engine.open("refused-" + i + ".example", 443, true);
            refused.awaitTurn();
            refused.onResponse(429, "300"); // owed a wait: none of them may be dropped
            refused.endAttempt();
        }
        assertEquals(hosts, store.size());
        assertTrue(store.examined() <= (long) InMemoryHostStateStore.EXAMINED_PER_INSERT * hosts, "examined " + store.examined());
        clock.advance(600_000); // every wait is over: the store shrinks back as new hosts come
        for (int i = 0; i < hosts; i++) {
            Call call = engine.open("later-" + i + ".example", 443, true);
            call.awaitTurn();
            call.onResponse(200, null);
            call.endAttempt();
        }
        assertTrue(store.size() <= 1_000, "back under the bound: " + store.size());
        assertTrue(store.examined() <= (long) InMemoryHostStateStore.EXAMINED_PER_INSERT * 2 * hosts, "examined " + store.examined());
    }
}
