package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.knowledge.InMemoryKnowledgeStore;
import dev.retryafter.agent.engine.knowledge.KnowledgeStore;
import dev.retryafter.agent.engine.knowledge.KnowledgeStoreContract;

import dev.retryafter.agent.store.redis.RedisKnowledgeStore;
import dev.retryafter.agent.store.redis.RedisFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fleet store keeps the store contract, against a real redis-server. The contract runs in
 * virtual time, so here the scripts take "now" from the caller instead of Redis's TIME; that Redis's
 * own clock is what a fleet shares is pinned by RedisFleetTest (clients hours apart). Every
 * read is rebuilt from what Redis keeps, never from the JVM's own copy, so what passes here is Redis.
 */
class RedisKnowledgeStoreContractTest extends KnowledgeStoreContract {

    private static final AtomicInteger FLEETS = new AtomicInteger();

    @RegisterExtension
    static final RedisFixture REDIS = new RedisFixture();
    private final List<RedisKnowledgeStore> opened = new ArrayList<>();

    @AfterEach
    void closeStores() {
        opened.forEach(RedisKnowledgeStore::close);
    }

    @Override
    protected KnowledgeStore newStore() {
        Clock clock = () -> T;
        RedisKnowledgeStore store = RedisKnowledgeStore.connect(REDIS.server().address(), "contract" + FLEETS.incrementAndGet(),
                new InMemoryKnowledgeStore(), clock, RedisFixture.ALL_SHARED, new RedisKnowledgeStore.Options().timeoutMillis(5000)
                        .timedByCaller().readingThrough());
        opened.add(store);
        return store;
    }

    /** The fleet keeps a host this JVM forgets, until its keys expire. */
    @Override
    protected boolean forgetDrops() {
        return false;
    }
}
