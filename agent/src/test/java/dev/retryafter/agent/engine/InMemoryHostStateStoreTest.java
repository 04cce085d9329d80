package dev.retryafter.agent.engine;

import dev.retryafter.agent.testing.VirtualClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
