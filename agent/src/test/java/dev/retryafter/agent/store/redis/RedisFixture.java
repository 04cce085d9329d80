package dev.retryafter.agent.store.redis;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real {@link RedisServer} for all the tests of a class, started before the first and stopped
 * after the last: {@code @RegisterExtension static final RedisFixture REDIS = new RedisFixture();}.
 * Each test keeps to keys of its own (a fleet name of its own), so nothing is flushed between tests.
 */
public final class RedisFixture implements BeforeAllCallback, AfterAllCallback {

    private RedisServer server;

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
