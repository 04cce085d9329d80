package dev.retryafter.agent.instrument;

import dev.retryafter.agent.AgentLog;
import dev.retryafter.agent.engine.Call;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

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

    private final ThreadLocal<Attempt> current = new ThreadLocal<>();
    /** Keyed by {@link Lease}; looked up with a {@link Probe}, which makes no reference for the GC to process. */
    private final ConcurrentHashMap<Object, Attempt> leased = new ConcurrentHashMap<>();
    private final ThreadLocal<Probe> probes = new ThreadLocal<Probe>() {
        @Override
        protected Probe initialValue() {
            return new Probe();
        }
    };
    private final ReferenceQueue<Object> dropped = new ReferenceQueue<>();

    public ConnectionLeases() {
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
        if (leased.putIfAbsent(new Lease(holder, dropped), attempt) == null) {
            attempt.leases.incrementAndGet();
        }
    }

    /** {@code holder} gave its connection back (released, discarded or aborted); any thread. */
    public void released(Object holder) {
        if (leased.isEmpty()) {
            return; // the common case, and every connection release in the JVM comes here
        }
        Probe probe = probes.get().of(holder);
        Attempt attempt;
        try {
            attempt = leased.remove(probe);
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
                Attempt attempt = leased.remove(lease);
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

    /** One attempt's leases, counted: the permit goes back when the response is out and none is left. */
    private static final class Attempt {
        final Call call;
        final AtomicInteger leases = new AtomicInteger();
        volatile boolean handedOver;
        private final AtomicBoolean ended = new AtomicBoolean();

        Attempt(Call call) {
            this.call = call;
        }

        void handOver() {
            handedOver = true;
            if (leases.get() == 0) {
                end();
            }
        }

        void leaseReturned() {
            if (leases.decrementAndGet() == 0 && handedOver) {
                end();
            }
        }

        void end() {
            if (ended.compareAndSet(false, true)) {
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
        private int hash;

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
        private final int hash;

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
