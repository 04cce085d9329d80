package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import org.junit.jupiter.params.provider.Arguments;

import java.util.stream.Stream;

/**
 * Vert.x WebClient 5 (on Netty 4.2; it needs Java 11) and 4 (on Netty 4.1, from Java 8), unchanged and built with their
 * defaults: the legacy scraper on {@code getAbs(url).send()}.
 */
class VertxWebClientTest extends AbstractChildJvmClientSuite {

    static final String FETCHER = "dev.retryafter.it.apps.java8.VertxWebClientFetcher";

    VertxWebClientTest() {
        super("Vert.x WebClient", FETCHER, "dev.retryafter.it.apps.java8.VertxWebClientApp");
    }

    /** 5: the module's own, with its Netty; 4: its folder and Netty 4.1's. */
    @Override
    ChildJvm onClasspath(ChildJvm jvm, Setup setup) {
        return setup.version.equals("5")
                ? withScraper(jvm, name -> name.startsWith("vertx-") || name.startsWith("netty-") || name.startsWith("jackson-core"))
                : withScraperAndFolders(jvm, "vertx-4", "netty-4.1");
    }

    @Override
    Stream<Arguments> lyingPortals() {
        return Stream.of(Arguments.of(setup("5", Jdk.JAVA_11), Behaviour.ALWAYS_ZERO, FETCHER),
                Arguments.of(setup("5", Jdk.JAVA_17), Behaviour.CONSTANT_OVERSTATED, FETCHER),
                Arguments.of(setup("5", Jdk.JAVA_21), Behaviour.CONSTANT_OVERSTATED, FETCHER),
                Arguments.of(setup("5", Jdk.JAVA_25), Behaviour.ALWAYS_ZERO, FETCHER),
                Arguments.of(setup("4", Jdk.JAVA_8), Behaviour.ALWAYS_ZERO, FETCHER),
                Arguments.of(setup("4", Jdk.JAVA_8), Behaviour.CONSTANT_OVERSTATED, FETCHER),
                Arguments.of(setup("4", Jdk.JAVA_21), Behaviour.CONSTANT_OVERSTATED, FETCHER));
    }

    @Override
    Stream<Setup> streamedBody() {
        return Stream.of(setup("5", Jdk.JAVA_11), setup("5", Jdk.JAVA_25), setup("4", Jdk.JAVA_8), setup("4", Jdk.JAVA_17));
    }

    @Override
    Stream<Setup> lastRefusal() {
        return Stream.of(setup("5", Jdk.JAVA_17), setup("4", Jdk.JAVA_11));
    }

    @Override
    Stream<Setup> switchedOff() {
        return Stream.of(setup("5", Jdk.JAVA_11), setup("5", Jdk.JAVA_17), setup("4", Jdk.JAVA_8));
    }
}
