package dev.retryafter.agent.instrument.jdk;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A refused body is read to its end when it ends within the bound, and cancelled when it does not. */
class DiscardedRefusalTest {

    /** The subscription the JDK would hand over: it counts what is asked of it. */
    private static final class Subscription implements Flow.Subscription {
        final AtomicLong requested = new AtomicLong();
        final AtomicInteger cancels = new AtomicInteger();

        @Override
        public void request(long n) {
            requested.addAndGet(n);
        }

        @Override
        public void cancel() {
            cancels.incrementAndGet();
        }
    }

    private static CompletableFuture<Void> body(DiscardedRefusal refusal) {
        return refusal.getBody().toCompletableFuture();
    }

    @Test
    void aBodyThatEndsIsReadToItsEndAndNotCancelled() throws Exception {
        DiscardedRefusal refusal = new DiscardedRefusal();
        Subscription subscription = new Subscription();
        refusal.onSubscribe(subscription);
        assertTrue(subscription.requested.get() > 0);
        refusal.onNext(List.of(ByteBuffer.allocate(512)));
        assertFalse(body(refusal).isDone());
        refusal.onComplete();
        assertTrue(body(refusal).isDone());
        Thread.sleep(2 * DiscardedRefusal.MAX_MILLIS); // the give-up comes, and finds nothing to do
        refusal.releaseConnection();
        assertEquals(0, subscription.cancels.get(), "the connection can be reused");
    }

    @Test
    void aBodyPastTheBytesIsLeftAtOnceAndCancelledWhenTheResponseIsDelivered() {
        DiscardedRefusal refusal = new DiscardedRefusal();
        Subscription subscription = new Subscription();
        refusal.onSubscribe(subscription);
        for (long read = 0; read <= DiscardedRefusal.MAX_BYTES; read += 8192) {
            refusal.onNext(List.of(ByteBuffer.allocate(8192)));
        }
        assertTrue(body(refusal).isDone());
        assertEquals(0, subscription.cancels.get(), "not while the JDK may still be delivering the response");
        refusal.releaseConnection();
        assertEquals(1, subscription.cancels.get());
        refusal.onComplete();
        refusal.releaseConnection();
        assertEquals(1, subscription.cancels.get(), "once");
    }

    /** Bounded by what cannot happen: a body that never ends is never given up on. */
    @Test
    void aBodyThatStallsIsLeftAfterTheTime() throws Exception {
        DiscardedRefusal refusal = new DiscardedRefusal();
        Subscription subscription = new Subscription();
        refusal.onSubscribe(subscription);
        refusal.onNext(List.of(ByteBuffer.allocate(10)));
        body(refusal).get(10, TimeUnit.SECONDS);
        refusal.releaseConnection();
        assertEquals(1, subscription.cancels.get());
    }

    @Test
    void aBodyCutShortEndsTheDiscardWithoutAnError() {
        DiscardedRefusal refusal = new DiscardedRefusal();
        refusal.onSubscribe(new Subscription());
        refusal.onError(new java.io.EOFException("cut"));
        assertTrue(body(refusal).isDone());
        assertFalse(body(refusal).isCompletedExceptionally(), "the retry goes ahead");
    }
}
