package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.params.provider.Arguments;

import java.util.stream.Stream;

/**
 * Jetty HttpClient 9.4, 10 and 11, unchanged (one Jetty per class path, and this module's own is 12): 9.4 on Java 8 and
 * 17, 10 on 11 and 17, 11 on 17 and 25. The legacy scraper on {@code send()} and on {@code send(listener)}; a body Jetty
 * cannot produce twice, and one it can; the last refusal handed to the application's listener on Java 17, to
 * {@code send()} elsewhere.
 */
class Jetty9to11Test extends AbstractChildJvmClientSuite {

    static final String FETCHER = "dev.retryafter.it.apps.java8.JettyLegacyFetcher";
    static final String LISTENER_FETCHER = "dev.retryafter.it.apps.java8.JettyLegacyFetcher$WithListener";

    Jetty9to11Test() {
        super("Jetty", FETCHER, "dev.retryafter.it.apps.java8.JettyLegacyApp");
    }

    /** The scraper, this Jetty's jars (from their folder; the scraper's own slf4j-api), and the test applications. */
    @Override
    ChildJvm onClasspath(ChildJvm jvm, Setup setup) {
        withScraperAndFolders(jvm);
        for (String jar : TestClasspath.folder("jetty-" + setup.version)) {
            if (!jar.contains("slf4j-api")) {
                jvm.classpathEntry(jar);
            }
        }
        return jvm;
    }

    /** Each Jetty once on its oldest Java: {@code send()} against Retry-After 3600, and {@code send(listener)} against 0. */
    @Override
    Stream<Arguments> lyingPortals() {
        return Stream.of(Arguments.of(setup("9.4", Jdk.JAVA_8), Behaviour.ALWAYS_ZERO, LISTENER_FETCHER),
                Arguments.of(setup("9.4", Jdk.JAVA_8), Behaviour.CONSTANT_OVERSTATED, FETCHER),
                Arguments.of(setup("10", Jdk.JAVA_11), Behaviour.ALWAYS_ZERO, FETCHER),
                Arguments.of(setup("10", Jdk.JAVA_17), Behaviour.CONSTANT_OVERSTATED, LISTENER_FETCHER),
                Arguments.of(setup("11", Jdk.JAVA_17), Behaviour.ALWAYS_ZERO, LISTENER_FETCHER),
                Arguments.of(setup("11", Jdk.JAVA_25), Behaviour.CONSTANT_OVERSTATED, FETCHER));
    }

    /** Each Jetty on the oldest Java it runs on, and on a newer one. */
    Stream<Setup> jettyAndJdk() {
        return Stream.of(setup("9.4", Jdk.JAVA_8), setup("9.4", Jdk.JAVA_17), setup("10", Jdk.JAVA_11), setup("10", Jdk.JAVA_17),
                setup("11", Jdk.JAVA_17), setup("11", Jdk.JAVA_25));
    }

    @Override
    Stream<Setup> streamedBody() {
        return jettyAndJdk();
    }

    @Override
    Stream<Setup> lastRefusal() {
        return jettyAndJdk();
    }

    /** Both paths: the application's own listener on Java 17. */
    @Override
    String lastRefusalMode(Setup setup) {
        return setup.jdk == Jdk.JAVA_17 ? "get-listener" : "get";
    }

    @Override
    Stream<Setup> switchedOff() {
        return jettyAndJdk();
    }
}
