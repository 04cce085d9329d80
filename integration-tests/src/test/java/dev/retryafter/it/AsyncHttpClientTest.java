package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import org.junit.jupiter.params.provider.Arguments;

import java.util.stream.Stream;

/**
 * AsyncHttpClient 3 (org.asynchttpclient, on Netty 4.2; it needs Java 11) and 2 (on Netty 4.1, from Java 8), unchanged and
 * built with their defaults: the legacy scraper on {@code execute().get()} and on a handler of its own with the future's
 * listener.
 */
class AsyncHttpClientTest extends AbstractChildJvmClientSuite {

    static final String FETCHER = "dev.retryafter.it.apps.java8.AsyncHttpClientFetcher";
    static final String HANDLER_FETCHER = "dev.retryafter.it.apps.java8.AsyncHttpClientFetcher$WithHandler";

    AsyncHttpClientTest() {
        super("AsyncHttpClient", FETCHER, "dev.retryafter.it.apps.java8.AsyncHttpClientApp");
    }

    /** 3: the module's own, with its Netty; 2: its folder and Netty 4.1's. */
    @Override
    ChildJvm onClasspath(ChildJvm jvm, Setup setup) {
        return setup.version.equals("3")
                ? withScraper(jvm, name -> name.startsWith("async-http-client") || name.startsWith("netty-")
                        || name.startsWith("reactive-streams") || name.startsWith("jakarta.activation"))
                : withScraperAndFolders(jvm, "async-http-client-2", "netty-4.1");
    }

    @Override
    Stream<Arguments> lyingPortals() {
        return Stream.of(Arguments.of(setup("3", Jdk.JAVA_11), Behaviour.ALWAYS_ZERO, FETCHER),
                Arguments.of(setup("3", Jdk.JAVA_17), Behaviour.CONSTANT_OVERSTATED, HANDLER_FETCHER),
                Arguments.of(setup("3", Jdk.JAVA_21), Behaviour.CONSTANT_OVERSTATED, FETCHER),
                Arguments.of(setup("3", Jdk.JAVA_25), Behaviour.ALWAYS_ZERO, HANDLER_FETCHER),
                Arguments.of(setup("2", Jdk.JAVA_8), Behaviour.ALWAYS_ZERO, HANDLER_FETCHER),
                Arguments.of(setup("2", Jdk.JAVA_8), Behaviour.CONSTANT_OVERSTATED, FETCHER),
                Arguments.of(setup("2", Jdk.JAVA_21), Behaviour.ALWAYS_ZERO, FETCHER));
    }

    @Override
    Stream<Setup> streamedBody() {
        return Stream.of(setup("3", Jdk.JAVA_11), setup("3", Jdk.JAVA_25), setup("2", Jdk.JAVA_8), setup("2", Jdk.JAVA_17));
    }

    @Override
    Stream<Setup> lastRefusal() {
        return Stream.of(setup("3", Jdk.JAVA_17), setup("2", Jdk.JAVA_8));
    }

    @Override
    Stream<Setup> switchedOff() {
        return Stream.of(setup("3", Jdk.JAVA_11), setup("3", Jdk.JAVA_17), setup("2", Jdk.JAVA_8));
    }
}
