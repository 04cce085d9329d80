package dev.retryafter.agent.instrument;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.engine.Call;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * Keeps an Apache attempt's permit until the connections it leased go back: a response handed to the
 * application still streams its body from the host, and counts against the host's concurrency cap
 * until the application closes it, reads it to its end, or Apache otherwise releases its connection.
 *
 * <p>A lease is Apache's own per-exchange holder of a pooled connection ({@code ConnectionHolder} in
 * Apache 4, {@code InternalExecRuntime} in 5); the advice reports when one takes a connection (on the
 * thread running the attempt) and when it gives it back (on any thread). A lease is held weakly: a
 * response the application drops without closing leaks its pooled connection for ever (Apache's own
 * leak, with or without the agent), but not the permit, which goes back once the garbage collector
 * has found the lease unreachable.
 */
public final class ConnectionLeases {

    /** A power of two, well above the threads that lease at once. */
    private static final int SHARDS = 64;

    private final ThreadLocal<Attempt> current = new ThreadLocal<>();
    /**
     * Keyed by {@link Lease}; looked up with a {@link Probe}, which makes no reference for the GC to
     * process. Shards of plain maps, each its own lock, where one concurrent map counted its size in
     * one place that every lease and release of every thread wrote.
     */
    private final Shard[] leased = new Shard[SHARDS];
    private final ThreadLocal<Probe> probes = new ThreadLocal<Probe>() {
        @Override
        protected Probe initialValue() {
            return new Probe();
        }
    };
    private final ReferenceQueue<Object> dropped = new ReferenceQueue<>();

    public ConnectionLeases() {
        for (int i = 0; i < SHARDS; i++) {
            leased[i] = new Shard();
        }
        Thread reaper = new Thread(new Runnable() { // not a lambda: made in premain (see AgentInstaller)
            @Override
            public void run() {
                reapDropped();
            }
        }, "retry-after-agent-leases");
        reaper.setDaemon(true);
        reaper.start();
    }

    /** The attempt of {@code call} is about to be sent on this thread: leases taken from now on are its own. */
    void attemptStarts(Call call) {
        current.set(new Attempt(call));
    }

    /**
     * The attempt's response goes to the application: its permit goes back now if it holds no
     * connection, else once the last one goes back. False when no attempt was started here: the caller ends it.
     */
    boolean handOver() {
        Attempt attempt = current.get();
        current.set(null);
        if (attempt == null) {
            return false;
        }
        attempt.handOver();
        return true;
    }

    /** The attempt ended here (failed, or refused and retried): its permit went back with it. */
    void attemptEnded() {
        Attempt attempt = current.get();
        current.set(null);
        if (attempt != null) {
            attempt.end();
        }
    }

    /** Whether this thread is running a governed attempt. */
    boolean isInAttempt() {
        return current.get() != null;
    }

    /** Apache leased a connection to {@code holder} on this thread. */
    public void acquired(Object holder) {
        Attempt attempt = current.get();
        if (attempt == null) {
            return; // not a governed attempt
        }
        Lease lease = new Lease(holder, dropped);
        if (shardOf(lease.hash).putIfAbsent(lease, attempt)) {
            attempt.leaseTaken();
        }
    }

    /** {@code holder} gave its connection back (released, discarded or aborted); any thread. */
    public void released(Object holder) {
        Probe probe = probes.get().of(holder);
        Attempt attempt;
        try {
            attempt = shardOf(probe.hash).remove(probe);
        } finally {
            probe.of(null); // holds no holder past the lookup
        }
        if (attempt != null) {
            attempt.leaseReturned();
        }
    }

    private void reapDropped() {
        while (true) {
            try {
                Lease lease = (Lease) dropped.remove();
                Attempt attempt = shardOf(lease.hash).remove(lease);
                if (attempt != null) {
                    attempt.leaseReturned();
                }
            } catch (InterruptedException e) {
                return;
            } catch (Throwable t) {
                AgentLog.failure("returning the permit of a response never closed", t);
            }
        }
    }

    private Shard shardOf(int hash) {
        return leased[(hash ^ (hash >>> 16)) & (SHARDS - 1)];
    }

    /** One shard of the leases: a plain map under its own lock. */
    private static final class Shard {
        private final HashMap<Object, Attempt> attempts = new HashMap<>();

        synchronized boolean putIfAbsent(Lease lease, Attempt attempt) {
            return attempts.putIfAbsent(lease, attempt) == null;
        }

        /** By a {@link Lease} or a {@link Probe}: both hash and compare their holder by identity. */
        synchronized Attempt remove(Object key) {
            return attempts.isEmpty() ? null : attempts.remove(key);
        }
    }

    /** One attempt's leases, counted: the permit goes back when the response is out and none is left. */
    private static final class Attempt {
        private static final AtomicIntegerFieldUpdater<Attempt> LEASES =
                AtomicIntegerFieldUpdater.newUpdater(Attempt.class, "leases");
        private static final AtomicIntegerFieldUpdater<Attempt> ENDED =
                AtomicIntegerFieldUpdater.newUpdater(Attempt.class, "ended");

        final Call call;
        private volatile int leases;
        private volatile int ended;
        volatile boolean handedOver;

        Attempt(Call call) {
            this.call = call;
        }

        void leaseTaken() {
            LEASES.incrementAndGet(this);
        }

        void handOver() {
            handedOver = true;
            if (leases == 0) {
                end();
            }
        }

        void leaseReturned() {
            if (LEASES.decrementAndGet(this) == 0 && handedOver) {
                end();
            }
        }

        void end() {
            if (ENDED.compareAndSet(this, 0, 1)) {
                call.endAttempt();
            }
        }
    }

    /**
     * A holder by identity, strongly, to find its {@link Lease}: the map compares a key it is given
     * with its own keys ({@code given.equals(own)}), so a probe equals a lease of the same holder.
     */
    private static final class Probe {
        private Object holder;
        int hash;

        Probe of(Object holder) {
            this.holder = holder;
            this.hash = System.identityHashCode(holder);
            return this;
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Lease && holder != null && ((Lease) other).get() == holder;
        }
    }

    /** A holder by identity, weakly: Apache's holders do not define equality, and must not be kept alive. */
    private static final class Lease extends WeakReference<Object> {
        final int hash;

        Lease(Object holder, ReferenceQueue<Object> queue) {
            super(holder, queue);
            this.hash = System.identityHashCode(holder);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object other) {
            if (this == other) {
                return true;
            }
            if (!(other instanceof Lease)) {
                return false;
            }
            Object mine = get();
            return mine != null && mine == ((Lease) other).get();
        }
    }
}
