package dev.retryafter.agent.testing;

import dev.retryafter.agent.engine.Delays;

import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;

/**
 * Discrete-event time for asynchronous callers: {@link #after} queues an event, {@link #run} fires
 * events in time order and moves the clock to each. Many "concurrent" workers run on one thread,
 * deterministically. Not threadsafe: drive it from one thread.
 */
public final class VirtualScheduler implements Delays {

    private final VirtualClock clock;
    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private long sequence;

    public VirtualScheduler(VirtualClock clock) {
        this.clock = clock;
    }

    @Override
    public CompletableFuture<Void> after(long millis) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        at(clock.millis() + Math.max(0, millis), () -> done.complete(null));
        return done;
    }

    /** Runs {@code task} at virtual time {@code when}. */
    public void at(long when, Runnable task) {
        events.add(new Event(when, sequence++, task));
    }

    /** Fires events until none is left, or until the next would pass {@code deadline}; that one stays queued. */
    public void run(long deadline) {
        while (!events.isEmpty() && events.peek().when <= deadline) {
            Event next = events.poll();
            if (next.when > clock.millis()) {
                clock.set(next.when);
            }
            next.task.run();
        }
    }

    public boolean isIdle() {
        return events.isEmpty();
    }

    private static final class Event implements Comparable<Event> {
        final long when;
        final long sequence;
        final Runnable task;

        Event(long when, long sequence, Runnable task) {
            this.when = when;
            this.sequence = sequence;
            this.task = task;
        }

        @Override
        public int compareTo(Event other) {
            int byTime = Long.compare(when, other.when);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }
}
