package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import org.junit.jupiter.params.provider.Arguments;

import java.util.stream.Stream;

/**
 * Spring's WebClient 6.2 on Reactor Netty 1.3 (Spring 6 needs Java 17), and 5.3 on Reactor Netty 1.0 (from Java 8),
 * unchanged and built with their defaults: the legacy scraper on {@code get().uri(url).exchangeToMono(...)}. A body is
 * one-shot for the agent whatever it is (Spring hands Reactor Netty a function that writes it, which the agent cannot
 * see into), so no body is sent again.
 */
class SpringWebClientTest extends AbstractChildJvmClientSuite {

    static final String FETCHER = "dev.retryafter.it.apps.java8.SpringWebClientFetcher";

    SpringWebClientTest() {
        super("Spring WebClient on Reactor Netty", FETCHER, "dev.retryafter.it.apps.SpringWebClientApp");
    }

    /** 6.2: the module's own Spring (and the context it needs), Reactor Netty and Netty; 5.3: their folders. */
    @Override
    ChildJvm onClasspath(ChildJvm jvm, Setup setup) {
        return setup.version.equals("6.2")
                ? withScraper(jvm, name -> name.startsWith("spring-") || name.startsWith("reactor-") || name.startsWith("netty-")
                        || name.startsWith("reactive-streams") || name.startsWith("micrometer-") || name.startsWith("jspecify"))
                : withScraperAndFolders(jvm, "spring5", "spring5-webflux", "reactor-netty-1.0", "netty-4.1");
    }

    @Override
    Stream<Arguments> lyingPortals() {
        return Stream.of(Arguments.of(setup("6.2", Jdk.JAVA_17), Behaviour.ALWAYS_ZERO, FETCHER),
                Arguments.of(setup("6.2", Jdk.JAVA_17), Behaviour.CONSTANT_OVERSTATED, FETCHER),
                Arguments.of(setup("6.2", Jdk.JAVA_25), Behaviour.ALWAYS_ZERO, FETCHER),
                Arguments.of(setup("5.3", Jdk.JAVA_8), Behaviour.CONSTANT_OVERSTATED, FETCHER));
    }

    @Override
    Stream<Setup> streamedBody() {
        return Stream.of(setup("6.2", Jdk.JAVA_17), setup("6.2", Jdk.JAVA_25));
    }

    @Override
    Stream<Setup> replayableBody() {
        return Stream.empty();
    }

    @Override
    Stream<Setup> lastRefusal() {
        return Stream.of(setup("6.2", Jdk.JAVA_17));
    }

    /** Not 5.3 on 8: off, the agent changes no class, which {@link ReactorNettyTest} sees on 8 already. */
    @Override
    Stream<Setup> switchedOff() {
        return Stream.of(setup("6.2", Jdk.JAVA_17), setup("6.2", Jdk.JAVA_25));
    }
}
