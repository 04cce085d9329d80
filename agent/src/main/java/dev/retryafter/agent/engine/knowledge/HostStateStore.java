package dev.retryafter.agent.engine.knowledge;

import dev.retryafter.agent.engine.HostState;

import java.util.Collection;
import java.util.function.Function;

/**
 * Where this JVM keeps its {@link HostState}s: per-host permits, counters and recent timestamps, which
 * mean nothing outside this JVM and are never shared. What a portal has shown is not here but in the
 * {@link KnowledgeStore}, the seam a state file or a store shared by a fleet of JVMs plugs into.
 * A store may drop a state only through {@link HostState#retireIfIdle}, which refuses while the
 * host has a request in flight or waiting, a hold or a wait owed.
 */
public interface HostStateStore {

    /** The live state of the host named {@code key} when there is one, or null: a lookup that makes nothing. */
    HostState live(String key);

    /** The state of the host named {@code key} ("host:port"), made with {@code create} on first use. */
    HostState stateFor(String key, Function<String, HostState> create);

    /** Every host tracked now, for the report. */
    Collection<HostState> hosts();

    /**
     * An operator asks to forget {@code key}: its state and what the knowledge store holds of it go, as
     * if it had never been seen. Refused (false) while a request to it is in flight or waiting for a
     * permit, or when the host is not tracked; a store that cannot drop states refuses always.
     */
    default boolean forget(String key) {
        return false;
    }
}
