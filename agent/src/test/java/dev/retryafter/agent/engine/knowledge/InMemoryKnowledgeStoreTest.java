package dev.retryafter.agent.engine.knowledge;

/** The in-memory store keeps the store contract. */
class InMemoryKnowledgeStoreTest extends KnowledgeStoreContract {

    @Override
    protected KnowledgeStore newStore() {
        return new InMemoryKnowledgeStore();
    }
}
