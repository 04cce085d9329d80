package dev.retryafter.it.harness;

import org.junit.jupiter.params.provider.Arguments;

import java.util.List;
import java.util.stream.Stream;

/** The clients the agent governs, as the legacy scraper names them, for parameterised tests. */
public final class Clients {

    /** {@code send}, {@code sendAsync}, Apache 5 and Apache 4. A client the agent comes to govern joins here, and {@link Jdk#supports}. */
    public static final List<String> GOVERNED = List.of("jdk", "jdk-async", "apache5", "apache4");

    private Clients() {
    }

    /**
     * Every governed client on every JDK that runs it (java.net.http on 11 and later, Apache on all):
     * {@code @MethodSource("dev.retryafter.it.harness.Clients#onEveryJdk")}.
     */
    public static Stream<Arguments> onEveryJdk() {
        return Jdk.all().stream().flatMap(jdk -> GOVERNED.stream().filter(jdk::supports).map(client -> Arguments.of(jdk, client)));
    }

    /** The client a test that needs just one uses on {@code jdk}: java.net.http where there is one, else Apache 4. */
    public static String plainOn(Jdk jdk) {
        return jdk.supports("jdk") ? "jdk" : "apache4";
    }
}
