package dev.retryafter.it;

import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import org.junit.jupiter.params.provider.Arguments;

import java.util.stream.Stream;

/**
 * Apache HttpAsyncClient 4.1, unchanged and built with its defaults, on Java 8 and 17: the legacy scraper on it (no retry
 * logic of its own). Its own test rather than a row of {@code Clients.GOVERNED}, which would add it to every scenario on
 * every JDK.
 */
class Apache4AsyncTest extends AbstractChildJvmClientSuite {

    Apache4AsyncTest() {
        super("Apache HttpAsyncClient", "dev.retryafter.it.apps.java8.Apache4AsyncFetcher", null);
    }

    /** The scraper and HttpAsyncClient 4.1's jars, and only those. */
    @Override
    ChildJvm onClasspath(ChildJvm jvm, Setup setup) {
        return withScraper(jvm, name -> name.startsWith("httpasyncclient") || name.startsWith("httpcore-nio"));
    }

    @Override
    Stream<Arguments> lyingPortals() {
        return bothPortalsOn("4.1", Jdk.JAVA_8, Jdk.JAVA_17);
    }

    @Override
    Stream<Setup> switchedOff() {
        return Stream.of(setup("4.1", Jdk.JAVA_8), setup("4.1", Jdk.JAVA_17));
    }
}
