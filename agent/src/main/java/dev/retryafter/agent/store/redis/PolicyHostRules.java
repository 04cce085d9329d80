package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.config.Policies;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Which hosts the fleet shares, and each one's window, as the policies say: asked two or three times
 * a request, so each host's answer is kept, and worked out again once a reload has brought other
 * policies. Whether a host is shared is read from the policies at start (sharing takes a restart);
 * its window from those in force.
 */
final class PolicyHostRules implements RedisKnowledgeStore.HostRules {

    /** Past this many hosts the answers are dropped and worked out afresh: a crawler gone wide keeps no unbounded map. */
    static final int MAX_HOSTS = 20_000;

    private final Policies atStart;
    private final Supplier<Policies> current;
    private final ConcurrentHashMap<String, Rule> byHost = new ConcurrentHashMap<>();

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
