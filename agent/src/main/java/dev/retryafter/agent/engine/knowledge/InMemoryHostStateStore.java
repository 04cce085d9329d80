package dev.retryafter.agent.engine.knowledge;

import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.engine.HostState;

import java.util.ArrayList;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Host state in this JVM, bounded: past {@code maxHosts}, idle hosts are dropped, least recently
 * used first. A host with a request in flight or waiting for a permit, an active hold or a wait
 * still owed is never dropped: forgetting it would lift its cap or its wait. When every host is
 * such a host, the store grows past its bound rather than break one.
 *
 * <p>Eviction is a second-chance queue: hosts join its tail when created; each creation past the
 * bound looks at a few hosts at its head, drops the idle ones not used since they were queued, and
 * queues the others again at the tail. The work per new host is bounded by {@link #EXAMINED_PER_INSERT},
 * and no lock is held that a lookup waits for.
 */
public final class InMemoryHostStateStore implements HostStateStore {

    /** A scraper of every county in a country stays under this; a crawler gone wrong does not grow without end. */
    public static final int DEFAULT_MAX_HOSTS = 10_000;

    /** More than one, so a store over its bound shrinks back while new hosts keep coming. */
    static final int EXAMINED_PER_INSERT = 4;

    private final ConcurrentHashMap<String, HostState> states = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Queued> order = new ConcurrentLinkedQueue<>();
    private final ReentrantLock evicting = new ReentrantLock();
    private final AtomicLong examined = new AtomicLong();
    private final int maxHosts;
    private final Clock clock;

    public InMemoryHostStateStore(int maxHosts, Clock clock) {
        if (maxHosts < 1) {
            throw new IllegalArgumentException("maxHosts must be at least 1");
        }
        this.maxHosts = maxHosts;
        this.clock = clock;
    }

    @Override
    public HostState live(String key) {
        HostState state = states.get(key);
        return state != null && !state.isRetired() ? state : null;
    }

    @Override
    public HostState stateFor(String key, final Function<String, HostState> create) {
        HostState state = states.get(key);
        if (state != null && !state.isRetired()) {
            return state;
        }
        final boolean[] created = new boolean[1];
        // compute, not computeIfAbsent: a state retired a moment ago may still be in the map.
        // Not a lambda: a first request comes this way (see AgentInstaller).
        state = states.compute(key, new BiFunction<String, HostState, HostState>() {
            @Override
            public HostState apply(String k, HostState current) {
                if (current != null && !current.isRetired()) {
                    return current;
                }
                created[0] = true;
                return create.apply(k);
            }
        });
        if (created[0]) {
            order.add(new Queued(state));
            evictIfOver();
        }
        return state;
    }

    @Override
    public Collection<HostState> hosts() {
        return new ArrayList<>(states.values());
    }

    @Override
    public boolean forget(String key) {
        boolean[] forgotten = new boolean[1];
        states.computeIfPresent(key, (k, current) -> {
            if (current.retireAndForget()) {
                forgotten[0] = true;
                return null;
            }
            return current;
        });
        return forgotten[0]; // its place in the eviction queue goes when eviction next reaches it: retired, it is not queued again
    }

    public int size() {
        return states.size();
    }

    /** How many hosts eviction has looked at, ever: the cost of keeping the bound. */
    long examined() {
        return examined.get();
    }

    private void evictIfOver() {
        if (states.size() <= maxHosts || !evicting.tryLock()) {
            return; // another thread is evicting: it will look at as many hosts as this one would have
        }
        try {
            long now = clock.millis();
            for (int i = 0; i < EXAMINED_PER_INSERT && states.size() > maxHosts; i++) {
                Queued head = order.poll();
                if (head == null) {
                    return;
                }
                examined.incrementAndGet();
                HostState state = head.state;
                long lastUsed = state.lastUsedMillis();
                if (lastUsed > head.lastUsedWhenQueued) {
                    order.add(new Queued(state)); // used since it was queued: a second chance
                    continue;
                }
                boolean[] retired = new boolean[1];
                states.computeIfPresent(state.key(), (k, current) -> {
                    if (current == state && state.retireIfIdle(now)) {
                        retired[0] = true;
                        return null;
                    }
                    return current;
                });
                if (!retired[0] && !state.isRetired()) {
                    order.add(new Queued(state)); // in use, held or owed a wait: kept, looked at again later
                }
            }
        } finally {
            evicting.unlock();
        }
    }

    /** A host's place in the eviction queue, with its last use when it took that place. */
    private static final class Queued {
        final HostState state;
        final long lastUsedWhenQueued;

        Queued(HostState state) {
            this.state = state;
            this.lastUsedWhenQueued = state.lastUsedMillis();
        }
    }
}
