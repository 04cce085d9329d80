package dev.retryafter.agent.engine.learn;

import java.util.concurrent.atomic.AtomicLongFieldUpdater;

/**
 * The last N timestamps, added from any thread without a lock: every response a busy host lets
 * through is added here, from every thread that sends to it, and a lock would line them all up.
 * Grows on demand, by doubling, up to its capacity (a power of two), so a quiet host costs a few
 * bytes. Read as a set, not in order: a reader may see a slot whose writer is still on its way
 * (an older timestamp, or 0), and an add racing a growth may be lost; the counts it feeds are
 * estimates of a window's successes, and one success more or less does not move them.
 */
final class ConcurrentTimestampRing {

    private static final long[] EMPTY = new long[0];
    private static final int FIRST_LENGTH = 8;
    private static final AtomicLongFieldUpdater<ConcurrentTimestampRing> ADDED =
            AtomicLongFieldUpdater.newUpdater(ConcurrentTimestampRing.class, "added");

    private final int capacity;
    private volatile long[] slots = EMPTY;
    /** Timestamps added so far; the n-th goes to slot {@code n % length}, the same slot in every length it fits. */
    private volatile long added;

    ConcurrentTimestampRing(int capacity) {
        if (Integer.bitCount(capacity) != 1 || capacity < FIRST_LENGTH) {
            throw new IllegalArgumentException("capacity must be a power of two, at least " + FIRST_LENGTH + ": " + capacity);
        }
        this.capacity = capacity;
    }

    void add(long timestamp) {
        long n = ADDED.getAndIncrement(this);
        long[] current = slots;
        if (n >= current.length && current.length < capacity) {
            current = grownFor(n);
        }
        current[(int) (n & (current.length - 1))] = timestamp;
    }

    /** How many of the slots hold a timestamp. */
    int size() {
        return (int) Math.min(added, slots.length);
    }

    /** The i-th slot, for i below {@link #size()}: in no particular order. */
    long get(int i) {
        return slots[i];
    }

    private synchronized long[] grownFor(long n) {
        long[] current = slots;
        if (n < current.length || current.length == capacity) {
            return current;
        }
        int length = current.length == 0 ? FIRST_LENGTH : current.length;
        while (length <= n && length < capacity) {
            length *= 2;
        }
        long[] bigger = new long[length];
        System.arraycopy(current, 0, bigger, 0, current.length);
        slots = bigger;
        return bigger;
    }
}
