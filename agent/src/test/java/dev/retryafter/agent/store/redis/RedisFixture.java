package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.config.RedisAddress;
import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.engine.knowledge.InMemoryKnowledgeStore;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real {@link RedisServer} for all the tests of a class, started before the first and stopped
 * after the last: {@code @RegisterExtension static final RedisFixture REDIS = new RedisFixture();}.
 * Each test keeps to keys of its own (a fleet name of its own), so nothing is flushed between tests.
 */
public final class RedisFixture implements BeforeAllCallback, AfterAllCallback {

    /** Every host is the fleet's, each of a window of a minute. */
    public static final RedisKnowledgeStore.HostRules ALL_SHARED = new RedisKnowledgeStore.HostRules() {
        @Override
        public boolean isShared(String host) {
            return true;
        }

        @Override
        public long windowMillis(String host) {
            return 60_000;
        }
    };

    private RedisServer server;

    /** A JVM's fleet store on {@code address}, over a copy in memory, every host shared, its lines told to {@code events}. */
    static RedisKnowledgeStore store(RedisAddress address, String fleet, Clock clock, RedisKnowledgeStore.Options options,
                                     RedisLink.Events events) {
        return new RedisKnowledgeStore(address, fleet, new InMemoryKnowledgeStore(), clock, ALL_SHARED, options, events);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        server = RedisServer.start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (server != null) {
            server.close();
        }
    }

    public RedisServer server() {
        return server;
    }
}
