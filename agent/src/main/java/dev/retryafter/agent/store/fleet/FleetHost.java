package dev.retryafter.agent.store.fleet;

import dev.retryafter.agent.engine.knowledge.HostKnowledge;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/** This JVM's dealings with one host of the fleet, and its lock; its knowledge is the engine's, as last seen. */
public final class FleetHost<K> {
    private static final AtomicLongFieldUpdater<FleetHost> KEPT_LOCAL = AtomicLongFieldUpdater.newUpdater(FleetHost.class, "keptLocalUntilNanos");
    static final AtomicReferenceFieldUpdater<FleetHost, FleetRefusal> REFUSAL =
            AtomicReferenceFieldUpdater.newUpdater(FleetHost.class, FleetRefusal.class, "refusal");
    /** How finely a host's last use is kept: it only decides, to the minute, which hosts are refreshed. */
    private static final long ASKED_GRAIN_MILLIS = 1000;

    final String key;
    /** The shared side's names for the host. */
    public final K keys;
    final AtomicInteger pendingAdmitted = new AtomicInteger();
    volatile long windowMillis = 60_000;
    volatile long lastAskedMillis;
    /** The fleet's knowledge as last refreshed, with what trips told since; null before the first refresh. */
    volatile HostKnowledge seen;
    /** {@link #seen} as last copied into this JVM's store. */
    volatile HostKnowledge copied;
    /** The fleet's answer to this JVM's latest refusal, for the learning that follows it. */
    volatile FleetRefusal refusal;
    /** On System.nanoTime: the shared side refused a command of this host's, which stays in this JVM until then. */
    private volatile long keptLocalUntilNanos;

    FleetHost(String key, K keys) {
        this.key = key;
        this.keys = keys;
    }

    /** The host's window, as its policy says: the fleet counts its successes in buckets of it. */
    public long windowMillis() {
        return windowMillis;
    }

    /** What a trip told, merged into what was seen; before the first refresh, only an answer that {@code refreshes} counts. */
    public void saw(HostKnowledge told, boolean refreshes) {
        HostKnowledge before = seen;
        if (before != null || refreshes) {
            seen = before == null ? told : before.mergedWith(told);
        }
    }

    /** The shared side refused the host's commands for its data: it stays in this JVM's knowledge for {@code millis}. */
    public void keepLocalFor(long millis) {
        keptLocalUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    }

    boolean isKeptLocal() {
        long until = keptLocalUntilNanos;
        return until != 0 && until - System.nanoTime() > 0;
    }

    /** True once, for the caller that first finds the host's time in this JVM over. */
    boolean keepingLocalEnded() {
        long until = keptLocalUntilNanos;
        return until != 0 && until - System.nanoTime() <= 0 && KEPT_LOCAL.compareAndSet(this, until, 0L);
    }

    /** Written only when it changes much: every request of every thread asks, and shared writes cost them all. */
    FleetHost<K> asked(long now, long window) {
        if (now - lastAskedMillis >= ASKED_GRAIN_MILLIS) {
            lastAskedMillis = now;
        }
        if (window > 0 && window != windowMillis) {
            windowMillis = window;
        }
        return this;
    }
}
