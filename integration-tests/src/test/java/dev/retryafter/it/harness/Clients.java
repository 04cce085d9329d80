package dev.retryafter.it.harness;

import org.junit.jupiter.params.provider.Arguments;

import java.util.List;
import java.util.stream.Stream;

/** The clients the agent governs, as the legacy scraper names them, for parameterised tests. */
public final class Clients {

    /** {@code send}, {@code sendAsync}, Apache 5 and Apache 4. */
    public static final List<String> GOVERNED = List.of("jdk", "jdk-async", "apache5", "apache4");

    private Clients() {
    }

    /** Every governed client on every JDK: {@code @MethodSource("dev.retryafter.it.harness.Clients#onBothJdks")}. */
    public static Stream<Arguments> onBothJdks() {
        return Jdk.all().stream().flatMap(jdk -> GOVERNED.stream().map(client -> Arguments.of(jdk, client)));
    }
}
