package dev.retryafter.agent.engine;

import java.util.Collection;
import java.util.function.Function;

/**
 * Where host state lives. In memory for one JVM today; an implementation shared by a fleet of
 * scraper JVMs can replace it without the engine noticing.
 */
public interface HostStateStore {

    /** The state of the host named {@code key} ("host:port"), made with {@code create} on first use. */
    HostState stateFor(String key, Function<String, HostState> create);

    /** Every host tracked now, for the report. */
    Collection<HostState> hosts();
}
