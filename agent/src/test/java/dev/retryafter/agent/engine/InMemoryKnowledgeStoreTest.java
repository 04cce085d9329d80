package dev.retryafter.agent.engine;

/** The in-memory store keeps the store contract. */
class InMemoryKnowledgeStoreTest extends KnowledgeStoreContract {

    @Override
    protected KnowledgeStore newStore() {
        return new InMemoryKnowledgeStore();
    }
}
