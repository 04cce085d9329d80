package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.config.AgentConfig;
import dev.retryafter.agent.config.Policies;
import dev.retryafter.agent.config.StoreSettings;
import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.engine.knowledge.InMemoryKnowledgeStore;
import dev.retryafter.agent.engine.knowledge.KnowledgeStore;
import dev.retryafter.agent.store.fleet.FleetKnowledgeStore;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/** The knowledge store the settings ask for, made for the agent at start-up. */
public final class FleetStores {

    /** Past this many hosts the rules' answers are dropped and worked out afresh: a crawler gone wide keeps no unbounded map. */
    static final int MAX_HOSTS = 20_000;

    private FleetStores() {
    }

    /**
     * The fleet's store on Redis, for hosts whose policy shares them, over {@code local} (this JVM's
     * copy; null for one in memory); null when the settings keep knowledge in this JVM. A host's keys
     * live as long as {@code state-max-age} after its last write, as a state file's knowledge does.
     * Each host's window is read from {@code current}, the policies in force now (a reload changes them).
     * Connects lazily: a Redis not there yet only opens the circuit.
     */
    public static RedisKnowledgeStore create(AgentConfig config, Clock clock, KnowledgeStore local, Supplier<Policies> current) {
        StoreSettings settings = config.store();
        if (!settings.isShared()) {
            return null;
        }
        return RedisKnowledgeStore.connect(settings.redis(), settings.fleet(), local != null ? local : new InMemoryKnowledgeStore(), clock,
                new PolicyHostRules(config.policies(), current), new RedisKnowledgeStore.Options().timeoutMillis(settings.timeoutMillis()).ttlMillis(config.stateFile().maxAgeMillis()));
    }

    /**
     * Which hosts the fleet shares, as the policies at start say (sharing takes a restart), and each
     * one's window, as those in force say. Asked two or three times a request: each host's answer is
     * kept, and worked out again once a reload has brought other policies.
     */
    private static final class PolicyHostRules implements FleetKnowledgeStore.HostRules {
        private final Policies atStart;
        private final Supplier<Policies> current;
        private final ConcurrentHashMap<String, Rule> byHost = new ConcurrentHashMap<>();

        PolicyHostRules(Policies atStart, Supplier<Policies> current) {
            this.atStart = atStart;
            this.current = current;
        }

        @Override
        public boolean isShared(String host) {
            return rule(host).shared;
        }

        @Override
        public long windowMillis(String host) {
            return rule(host).windowMillis;
        }

        private Rule rule(String host) {
            Policies now = current.get();
            Rule rule = byHost.get(host);
            if (rule == null || rule.readFrom != now) {
                if (byHost.size() >= MAX_HOSTS) {
                    byHost.clear();
                }
                int colon = host.lastIndexOf(':');
                String name = host.substring(0, colon);
                int port = Integer.parseInt(host.substring(colon + 1));
                rule = new Rule(now, atStart.isShared(name, port), now.policyFor(name, port).windowMillis());
                byHost.put(host, rule);
            }
            return rule;
        }
    }

    /** One host's answers, and the policies they were read from. */
    private static final class Rule {
        final Policies readFrom;
        final boolean shared;
        final long windowMillis;

        Rule(Policies readFrom, boolean shared, long windowMillis) {
            this.readFrom = readFrom;
            this.shared = shared;
            this.windowMillis = windowMillis;
        }
    }
}
