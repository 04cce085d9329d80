package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import org.junit.jupiter.params.provider.Arguments;

import java.util.stream.Stream;

/**
 * Spring's WebClient 6.2 on Reactor Netty 1.3, unchanged and built with its defaults (Spring 6 needs Java 17): the
 * legacy scraper on {@code get().uri(url).exchangeToMono(...)}. A body is one-shot for the agent whatever it is (Spring
 * hands Reactor Netty a function that writes it, which the agent cannot see into), so no body is sent again.
 */
class SpringWebClientTest extends AbstractChildJvmClientSuite {

    /** The demo's fetcher, as {@code --client spring-webclient} chooses it. */
    static final String FETCHER = "spring-webclient";

    SpringWebClientTest() {
        super("Spring WebClient on Reactor Netty", FETCHER, "dev.retryafter.it.apps.SpringWebClientApp");
    }

    /** Spring's WebClient (and the context it needs), Reactor Netty and Netty. */
    @Override
    ChildJvm onClasspath(ChildJvm jvm, Setup setup) {
        return withScraper(jvm, name -> name.startsWith("spring-") || name.startsWith("reactor-") || name.startsWith("netty-")
                || name.startsWith("reactive-streams") || name.startsWith("micrometer-") || name.startsWith("jspecify"));
    }

    @Override
    Stream<Arguments> lyingPortals() {
        return Stream.of(Arguments.of(setup("6.2", Jdk.JAVA_17), Behaviour.ALWAYS_ZERO, FETCHER),
                Arguments.of(setup("6.2", Jdk.JAVA_17), Behaviour.CONSTANT_OVERSTATED, FETCHER),
                Arguments.of(setup("6.2", Jdk.JAVA_25), Behaviour.ALWAYS_ZERO, FETCHER));
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

    @Override
    Stream<Setup> switchedOff() {
        return Stream.of(setup("6.2", Jdk.JAVA_17), setup("6.2", Jdk.JAVA_25));
    }
}
