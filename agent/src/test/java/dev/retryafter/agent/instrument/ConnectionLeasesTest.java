package dev.retryafter.agent.instrument;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.engine.PolicyLookup;
import dev.retryafter.agent.engine.RetryEngine;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A handed-over Apache attempt keeps its permit until its connections go back, or are collected unreachable. */
class ConnectionLeasesTest {

    private final RetryEngine engine = RetryEngine.builder()
            .policies(PolicyLookup.everyHost(Policy.builder().maxConcurrency(1).build())).build();
    private final ConnectionLeases leases = new ConnectionLeases();

    @Test
    void thePermitGoesBackWhenTheLastConnectionDoes() throws Exception {
        Object first = new Object();
        Object second = new Object();
        sendAndHandOver(first, second);

        CompletableFuture<Void> next = engine.open("portal.example", 443, true).turn();
        assertFalse(next.isDone(), "the response still streams: its permit is held");
        leases.released(first);
        leases.released(first); // Apache may release twice: counted once
        assertFalse(next.isDone(), "one connection is still out");
        leases.released(second);
        next.get(5, TimeUnit.SECONDS);
    }

    @Test
    void aResponseWithNoConnectionLeftGivesThePermitBackAtOnce() throws Exception {
        Object holder = new Object();
        Call call = engine.open("portal.example", 443, true);
        call.awaitTurn();
        leases.attemptStarts(call);
        leases.acquired(holder);
        leases.released(holder); // a body that was not streamed: released before the response returned
        assertTrue(leases.handOver());
        engine.open("portal.example", 443, true).turn().get(5, TimeUnit.SECONDS);
    }

    @Test
    void aHolderOutsideAGovernedAttemptIsNotCounted() throws Exception {
        leases.acquired(new Object());
        assertFalse(leases.handOver(), "no attempt here: the caller ends its own");
    }

    @Test
    void aResponseNeverClosedGivesThePermitBackOnceCollected() throws Exception {
        sendAndHandOver(new Object()); // the only reference to the holder is gone
        CompletableFuture<Void> next = engine.open("portal.example", 443, true).turn();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!next.isDone() && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        assertTrue(next.isDone(), "the collector found the holder, and the permit came back");
    }

    private void sendAndHandOver(Object... holders) throws Exception {
        Call call = engine.open("portal.example", 443, true);
        call.awaitTurn();
        leases.attemptStarts(call);
        for (Object holder : holders) {
            leases.acquired(holder);
        }
        assertFalse(call.onResponse(200, null), "admitted: handed to the application");
        assertTrue(leases.handOver());
    }
}
