package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.config.Policies;
import dev.retryafter.agent.config.StoreSettings;
import dev.retryafter.agent.engine.Clock;

/** The knowledge store the settings ask for, made for the agent at start-up. */
public final class FleetStores {

    private FleetStores() {
    }

    /**
     * The fleet's store on Redis, for hosts whose policy shares them; null when the settings keep
     * knowledge in memory. Connects lazily: a Redis not there yet only opens the circuit.
     */
    public static RedisKnowledgeStore create(StoreSettings settings, Policies policies, Clock clock) {
        if (!settings.isShared()) {
            return null;
        }
        RedisHostKnowledge fleet = RedisHostKnowledge.connect(settings.redis(), settings.fleet(), clock, settings.options());
        return new RedisKnowledgeStore(fleet, clock, new RedisKnowledgeStore.HostRules() {
            @Override
            public boolean isShared(String host) {
                int colon = host.lastIndexOf(':');
                return policies.isShared(host.substring(0, colon), Integer.parseInt(host.substring(colon + 1)));
            }

            @Override
            public long windowMillis(String host) {
                int colon = host.lastIndexOf(':');
                return policies.policyFor(host.substring(0, colon), Integer.parseInt(host.substring(colon + 1))).windowMillis();
            }
        });
    }
}
