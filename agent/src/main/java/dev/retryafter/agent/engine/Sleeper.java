package dev.retryafter.agent.engine;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** How a blocking caller waits. Tests pass one that advances a virtual clock instead. */
@FunctionalInterface
public interface Sleeper {

    /** Waits, or throws at once when interrupted; the interrupt is the caller's to keep. */
    void sleep(long millis) throws InterruptedException;

    /**
     * Waits as {@link #sleep} does, but ends early once {@code over} reads true after the sleeping thread was unparked
     * ({@link LockSupport#unpark}): a call the application cancelled from another thread waits no longer.
     */
    default void sleep(long millis, BooleanSupplier over) throws InterruptedException {
        sleep(millis);
    }

    Sleeper SYSTEM = new Sleeper() {
        @Override
        public void sleep(long millis) throws InterruptedException {
            Thread.sleep(millis);
        }

        @Override
        public void sleep(long millis, BooleanSupplier over) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            for (long left = deadline - System.nanoTime(); ; left = deadline - System.nanoTime()) {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                if (left <= 0 || over.getAsBoolean()) {
                    return;
                }
                LockSupport.parkNanos(this, left); // may return early for no reason: looked at again
            }
        }
    };
}
