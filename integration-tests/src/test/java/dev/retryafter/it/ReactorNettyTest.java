package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import org.junit.jupiter.params.provider.Arguments;

import java.util.stream.Stream;

/**
 * Reactor Netty's HttpClient 1.2 (Spring Boot 3.4 and 3.5's), 1.1 and 1.0 (on Netty 4.1, from Java 8), unchanged and built with its defaults: the legacy
 * scraper on {@code get().uri(url).responseSingle(...)}. 1.3 runs on 17 and 25 in the in-process suite
 * ({@code ReactorNettyAttachedTest}), and under Spring's WebClient 5.3 on 1.0 ({@link SpringWebClientTest}).
 */
class ReactorNettyTest extends AbstractChildJvmClientSuite {

    static final String FETCHER = "dev.retryafter.it.apps.java8.ReactorNettyFetcher";

    ReactorNettyTest() {
        super("Reactor Netty HttpClient", FETCHER, "dev.retryafter.it.apps.java8.ReactorNettyApp");
    }

    /** The version's folder (Reactor Netty and its Reactor Core) and Netty 4.1's. */
    @Override
    ChildJvm onClasspath(ChildJvm jvm, Setup setup) {
        return withScraperAndFolders(jvm, "reactor-netty-" + setup.version, "netty-4.1");
    }

    @Override
    Stream<Arguments> lyingPortals() {
        return Stream.of(Arguments.of(setup("1.1", Jdk.JAVA_8), Behaviour.ALWAYS_ZERO, FETCHER),
                Arguments.of(setup("1.1", Jdk.JAVA_11), Behaviour.CONSTANT_OVERSTATED, FETCHER),
                Arguments.of(setup("1.2", Jdk.JAVA_21), Behaviour.ALWAYS_ZERO, FETCHER));
    }

    /** On 8, where a body function's captured publisher is read from a lambda of Java 8's making. */
    @Override
    Stream<Setup> streamedBody() {
        return Stream.of(setup("1.0", Jdk.JAVA_8));
    }

    @Override
    Stream<Setup> switchedOff() {
        return Stream.of(setup("1.1", Jdk.JAVA_8));
    }
}
