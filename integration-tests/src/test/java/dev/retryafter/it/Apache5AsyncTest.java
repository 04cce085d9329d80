package dev.retryafter.it;

import dev.retryafter.it.harness.Jdk;
import org.junit.jupiter.params.provider.Arguments;

import java.util.stream.Stream;

/**
 * Apache HttpAsyncClient 5, unchanged and built with its defaults, on Java 8 and 17: the legacy scraper on it (no retry
 * logic of its own; against Retry-After 3600 its own strategy stalls). Its own test rather than a row of
 * {@code Clients.GOVERNED}, which would add it to every scenario on every JDK.
 */
class Apache5AsyncTest extends AbstractChildJvmClientSuite {

    Apache5AsyncTest() {
        super("Apache HttpAsyncClient", "dev.retryafter.it.apps.java8.Apache5AsyncFetcher", null);
    }

    @Override
    Stream<Arguments> lyingPortals() {
        return bothPortalsOn("5", Jdk.JAVA_8, Jdk.JAVA_17);
    }
}
