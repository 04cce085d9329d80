package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import org.junit.jupiter.params.provider.Arguments;

import java.util.stream.Stream;

/**
 * Vert.x WebClient 5 (on Netty; it needs Java 11), unchanged and built with its defaults: the legacy scraper on
 * {@code getAbs(url).send()}.
 */
class VertxWebClientTest extends AbstractChildJvmClientSuite {

    static final String FETCHER = "dev.retryafter.it.apps.java8.VertxWebClientFetcher";

    VertxWebClientTest() {
        super("Vert.x WebClient", FETCHER, "dev.retryafter.it.apps.java8.VertxWebClientApp");
    }

    /** The scraper, Vert.x 5 and Netty. */
    @Override
    ChildJvm onClasspath(ChildJvm jvm, Setup setup) {
        return withScraper(jvm, name -> name.startsWith("vertx-") || name.startsWith("netty-") || name.startsWith("jackson-core"));
    }

    @Override
    Stream<Arguments> lyingPortals() {
        return Stream.of(Arguments.of(setup("5", Jdk.JAVA_11), Behaviour.ALWAYS_ZERO, FETCHER),
                Arguments.of(setup("5", Jdk.JAVA_17), Behaviour.CONSTANT_OVERSTATED, FETCHER),
                Arguments.of(setup("5", Jdk.JAVA_21), Behaviour.CONSTANT_OVERSTATED, FETCHER),
                Arguments.of(setup("5", Jdk.JAVA_25), Behaviour.ALWAYS_ZERO, FETCHER));
    }

    @Override
    Stream<Setup> streamedBody() {
        return Stream.of(setup("5", Jdk.JAVA_11), setup("5", Jdk.JAVA_25));
    }

    @Override
    Stream<Setup> replayableBody() {
        return streamedBody();
    }

    @Override
    Stream<Setup> lastRefusal() {
        return Stream.of(setup("5", Jdk.JAVA_17));
    }

    @Override
    Stream<Setup> switchedOff() {
        return Stream.of(setup("5", Jdk.JAVA_11), setup("5", Jdk.JAVA_17));
    }
}
