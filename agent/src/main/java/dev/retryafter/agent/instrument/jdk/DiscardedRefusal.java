package dev.retryafter.agent.instrument.jdk;

import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The body of a refusal the agent will retry, read and dropped within a bound of time and bytes
 * (OkHttp gives a body it discards 100 ms). A body that ends within both leaves its connection to
 * be reused. One that stalls, runs on past the bytes, or never ends is given up on, and cancelled
 * once the response is delivered ({@link #releaseConnection}): the JDK then closes its connection
 * instead of pooling it. A body cut short ends the discard too. Whichever
 * way, the retry goes ahead at once, and no refusal's body can hold it up.
 */
final class DiscardedRefusal implements BodySubscriber<Void> {

    /** As OkHttp's discard: long enough for a small body on a slow link, short against any wait. */
    static final long MAX_MILLIS = 100;
    /** A refusal's page is a few KB; past this it is not worth keeping the connection for. */
    static final long MAX_BYTES = 64 * 1024;

    /** Runs the give-up on the JDK's own timer thread, as {@code orTimeout} does: no pool it could queue behind. */
    private static final Executor AFTER_MAX_MILLIS = CompletableFuture.delayedExecutor(MAX_MILLIS, TimeUnit.MILLISECONDS, Runnable::run);

    private final CompletableFuture<Void> discarded = new CompletableFuture<>();
    private final AtomicReference<Flow.Subscription> subscription = new AtomicReference<>();
    /** Set once, by the body's end or by the give-up, whichever comes first. */
    private final AtomicBoolean finished = new AtomicBoolean();
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile boolean givenUp;
    private long bytes; // onNext calls never overlap (Flow's rule)

    @Override
    public void onSubscribe(Flow.Subscription s) {
        if (!subscription.compareAndSet(null, s)) {
            s.cancel();
            return;
        }
        s.request(Long.MAX_VALUE);
        AFTER_MAX_MILLIS.execute(this::giveUp);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        for (ByteBuffer buffer : buffers) {
            bytes += buffer.remaining();
        }
        if (bytes > MAX_BYTES) {
            giveUp();
        }
    }

    /** A body cut short: nothing more will come on that connection, and the retry needs none of it. */
    @Override
    public void onError(Throwable failure) {
        finish(false);
    }

    @Override
    public void onComplete() {
        finish(false);
    }

    @Override
    public CompletionStage<Void> getBody() {
        return discarded;
    }

    /** Stops reading, unless the body has ended already. */
    private void giveUp() {
        finish(true);
    }

    private void finish(boolean givingUp) {
        if (finished.compareAndSet(false, true)) {
            givenUp = givingUp;
            discarded.complete(null);
        }
    }

    /**
     * Called by the adapter once the client has delivered the response: a body given up is
     * cancelled then, and the JDK closes its connection rather than pool it. Not sooner: from
     * Java 21 the JDK fails the exchange still in flight when its body subscriber cancels ("fixed
     * content-length: ..., bytes received: ..."), and the response is delivered on another thread
     * some time after the body is said to be read.
     */
    void releaseConnection() {
        if (givenUp && released.compareAndSet(false, true)) {
            subscription.get().cancel();
        }
    }
}
