package dev.retryafter.agent.engine.learn;

/**
 * The last N timestamps, in the order they were added. Grows on demand up to its capacity, so a
 * host that sees one request costs a few bytes and a busy one at most {@code capacity * 8}.
 * Not thread-safe.
 */
final class TimestampRing {

    private static final long[] EMPTY = new long[0];

    private final int capacity;
    private long[] slots = EMPTY;
    private int size;
    private int oldest;

    TimestampRing(int capacity) {
        this.capacity = capacity;
    }

    void add(long timestamp) {
        if (size < slots.length) {
            slots[(oldest + size++) % slots.length] = timestamp;
        } else if (slots.length < capacity) {
            grow();
            slots[size++] = timestamp;
        } else {
            slots[oldest] = timestamp;
            oldest = (oldest + 1) % slots.length;
        }
    }

    int size() {
        return size;
    }

    /** The i-th timestamp, oldest first. */
    long get(int i) {
        return slots[(oldest + i) % slots.length];
    }

    private void grow() {
        long[] bigger = new long[Math.min(capacity, Math.max(8, slots.length * 2))];
        for (int i = 0; i < size; i++) {
            bigger[i] = get(i);
        }
        slots = bigger;
        oldest = 0;
    }
}
