package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.config.AgentConfig;
import dev.retryafter.agent.config.Policies;
import dev.retryafter.agent.config.StoreSettings;
import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.engine.InMemoryKnowledgeStore;
import dev.retryafter.agent.engine.KnowledgeStore;

/** The knowledge store the settings ask for, made for the agent at start-up. */
public final class FleetStores {

    private FleetStores() {
    }

    /**
     * The fleet's store on Redis, for hosts whose policy shares them, over {@code local} (this JVM's
     * copy; null for one in memory); null when the settings keep knowledge in this JVM. A host's keys
     * live as long as {@code state-max-age} after its last write, as a state file's knowledge does.
     * Connects lazily: a Redis not there yet only opens the circuit.
     */
    public static RedisKnowledgeStore create(AgentConfig config, Clock clock, KnowledgeStore local) {
        return create(config, clock, local, config::policies);
    }

    /**
     * As above, with each host's window read from {@code current}, the policies in force now (a
     * reload changes them); which hosts are shared is read from the policies at start, as sharing
     * takes a restart.
     */
    public static RedisKnowledgeStore create(AgentConfig config, Clock clock, KnowledgeStore local,
                                             java.util.function.Supplier<Policies> current) {
        StoreSettings settings = config.store();
        if (!settings.isShared()) {
            return null;
        }
        Policies policies = config.policies();
        RedisFleet fleet = RedisFleet.connect(settings.redis(), settings.fleet(), clock,
                settings.options().ttlMillis(config.stateFile().maxAgeMillis()));
        return new RedisKnowledgeStore(fleet, local != null ? local : new InMemoryKnowledgeStore(), clock,
                new PolicyHostRules(policies, current));
    }
}
