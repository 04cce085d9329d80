package dev.retryafter.agent.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Host state in this JVM, bounded: past {@code maxHosts}, the least recently used idle hosts are
 * dropped, a tenth at a time so the cost of sorting is paid rarely. A host with requests in flight,
 * waiters or an active hold is never dropped: forgetting it would lift its cap or its hold.
 */
public final class InMemoryHostStateStore implements HostStateStore {

    /** A scraper of every county in a country stays under this; a crawler gone wrong does not grow without end. */
    public static final int DEFAULT_MAX_HOSTS = 10_000;

    private final ConcurrentHashMap<String, HostState> states = new ConcurrentHashMap<>();
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
    public HostState stateFor(String key, Function<String, HostState> create) {
        HostState state = states.get(key);
        if (state != null) {
            return state;
        }
        state = states.computeIfAbsent(key, create);
        if (states.size() > maxHosts) {
            evictLeastRecentlyUsed();
        }
        return state;
    }

    @Override
    public Collection<HostState> hosts() {
        return new ArrayList<>(states.values());
    }

    public int size() {
        return states.size();
    }

    private synchronized void evictLeastRecentlyUsed() {
        int excess = states.size() - maxHosts;
        if (excess <= 0) {
            return;
        }
        long now = clock.millis();
        // Sorted on a copy of each host's last use: other threads move the live values during the sort.
        List<long[]> idle = new ArrayList<>();
        List<HostState> byIndex = new ArrayList<>();
        for (HostState state : states.values()) {
            if (state.isEvictable(now)) {
                idle.add(new long[] {state.lastUsedMillis(), byIndex.size()});
                byIndex.add(state);
            }
        }
        idle.sort(Comparator.comparingLong(entry -> entry[0]));
        int toDrop = Math.min(idle.size(), excess + maxHosts / 10);
        for (int i = 0; i < toDrop; i++) {
            HostState state = byIndex.get((int) idle.get(i)[1]);
            states.remove(state.key(), state);
        }
    }
}
