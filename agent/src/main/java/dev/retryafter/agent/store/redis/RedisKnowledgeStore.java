package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.config.RedisAddress;
import dev.retryafter.agent.config.StoreSettings;
import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.engine.knowledge.KnowledgeStore;
import dev.retryafter.agent.store.fleet.FleetKnowledgeStore;

import java.util.concurrent.TimeUnit;

/**
 * The engine's knowledge store, shared by a fleet on Redis ({@link RedisFleet}), over this JVM's own: a
 * {@link FleetKnowledgeStore} whose shared side is Redis. Starts no connection yet: the first operation
 * connects, and a Redis not there yet only opens the circuit.
 */
public final class RedisKnowledgeStore extends FleetKnowledgeStore<RedisFleet.Keys> {

    /** Tests ask it whether Redis is available, and add their own listeners for its return. */
    final RedisLink link;
    private final RedisFleet redis;

    /** The options a fleet store is made with; the defaults suit a loopback or same-zone Redis. */
    public static final class Options {
        int timeoutMillis = RedisLink.DEFAULT_TIMEOUT_MILLIS;
        long ttlMillis = TimeUnit.DAYS.toMillis(7); // the state file's default age limit
        long refreshMillis = 200;
        boolean countsAtOnce = true;
        boolean timedByCaller;
        boolean readThrough;
        long steadyMillis = RedisLink.DEFAULT_STEADY_MILLIS;
        /** After Redis refused a host's command (out of memory, say): a refusal that lasts costs a trip every 30 s, not every request. */
        long keptLocalMillis = 30_000;

        /** For tests in virtual time only: the scripts take "now" from the caller instead of Redis's {@code TIME}. */
        public Options timedByCaller() {
            timedByCaller = true;
            return this;
        }

        /** For the store contract only: every {@link #read} is Redis's answer, far too slow for requests. */
        public Options readingThrough() {
            readThrough = true;
            return this;
        }

        public Options timeoutMillis(int millis) {
            if (millis < 1) {
                throw new IllegalArgumentException("the store timeout must be at least 1 ms");
            }
            timeoutMillis = millis;
            return this;
        }

        public Options ttlMillis(long millis) {
            ttlMillis = Math.max(1000, millis);
            return this;
        }

        /** A success's count waits for the next refresh or operation; for a test of the request path alone. */
        public Options countsOnlyWithTheRefresh() {
            countsAtOnce = false;
            return this;
        }

        public Options refreshMillis(long millis) {
            refreshMillis = Math.max(10, millis);
            return this;
        }

        Options keptLocalMillis(long millis) {
            keptLocalMillis = Math.max(1, millis);
            return this;
        }

        /** How long Redis must answer steadily before an outage is over and said to be. */
        Options steadyMillis(long millis) {
            steadyMillis = Math.max(1, millis);
            return this;
        }
    }

    /** With {@code local} as this JVM's copy (a state file's store, say, so that what this JVM knew outlives it). */
    public static RedisKnowledgeStore connect(RedisAddress address, String fleet, KnowledgeStore local, Clock clock, HostRules rules,
                                              Options options) {
        return new RedisKnowledgeStore(address, fleet, local, clock, rules, options, RedisLink.Events.LOG);
    }

    RedisKnowledgeStore(RedisAddress address, String fleet, KnowledgeStore local, Clock clock, HostRules rules, Options options,
                        RedisLink.Events events) {
        this(new RedisFleet(address, StoreSettings.checkedFleet(fleet), clock, options, events), local, clock, rules, options);
    }

    private RedisKnowledgeStore(RedisFleet redis, KnowledgeStore local, Clock clock, HostRules rules, Options options) {
        super(redis, local, clock, rules, options.refreshMillis, options.countsAtOnce, options.readThrough);
        this.redis = redis;
        this.link = redis.link;
    }

    /** The key of {@code host}'s hash. */
    String hashKey(String host) {
        return redis.keys(host).hash;
    }
}
