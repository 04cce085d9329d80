package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.ClientJvmScenarios;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Spring's WebClient 6.2 on Reactor Netty 1.3, unchanged and built with its defaults, in child JVMs with the agent
 * attached (Spring 6 needs Java 17): the legacy scraper on {@code get().uri(url).exchangeToMono(...)}, against portals
 * whose Retry-After lies; a one-shot body sent once; the last refusal handed to the application with its body; and
 * switched off, the same requests as without the agent.
 */
@Execution(ExecutionMode.CONCURRENT)
class SpringWebClientTest {

    static final String CLIENT = "Spring WebClient on Reactor Netty";
    static final String FETCHER = "dev.retryafter.it.apps.SpringWebClientFetcher";
    static final String APP = "dev.retryafter.it.apps.SpringWebClientApp";
    static final String POLICY = "default.min-sleep = 1s\n"
            + "default.max-sleep = 4s\n"
            + "default.max-attempts = 10\n";

    static Stream<Arguments> lyingPortals() {
        return Stream.of(Arguments.of(Jdk.JAVA_17, Behaviour.ALWAYS_ZERO),
                Arguments.of(Jdk.JAVA_17, Behaviour.CONSTANT_OVERSTATED),
                Arguments.of(Jdk.JAVA_25, Behaviour.ALWAYS_ZERO));
    }

    /** The scraper, Spring's WebClient (and the context it needs), Reactor Netty and Netty, and the test applications. */
    static ChildJvm onClasspath(Jdk jdk) {
        return new ChildJvm(jdk).classpath(TestClasspath.SCRAPER.or(name -> name.startsWith("spring-") || name.startsWith("reactor-")
                        || name.startsWith("netty-") || name.startsWith("reactive-streams") || name.startsWith("micrometer-")
                        || name.startsWith("jspecify")))
                .classpathEntry(TestClasspath.testClasses());
    }

    /** 40 records, 10 requests per 2 s, Retry-After 0 (a hot loop, obeyed) or 3600; three workers. */
    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("lyingPortals")
    void everyRecordArrivesAndNoWorkerIsSentSoonerThanMinSleepAfterARefusal(Jdk jdk, Behaviour behaviour) throws Exception {
        ClientJvmScenarios.everyRecordArrivesAndNoWorkerIsSentSoonerThanMinSleep(CLIENT + " on " + jdk, onClasspath(jdk), behaviour,
                FETCHER, POLICY, 1_000, 40);
    }

    /**
     * A one-shot body (a unicast sink's flux) is sent once. Spring hands Reactor Netty a function that writes the body,
     * which the agent cannot see into: a request with a method that carries a body is not sent again.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_17", "JAVA_25"})
    void aOneShotBodyIsNeverSentTwice(Jdk jdk) throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("0"))) {
            ChildJvm.Result run = ClientJvmScenarios.app(onClasspath(jdk), POLICY, APP, "post-once", server.url("/upload"));
            assertEquals(0, run.exitCode, run::toString);
            assertTrue(run.stdout.contains("STATUS 429 "), () -> "the refusal went back to the application\n" + run);
            assertEquals(List.of("once"), server.bodies, () -> "sent once, by the agent and the client alike\n" + run);
            assertFalse(run.stderr.contains("internal failure"), run::toString);
        }
    }

    /** The last refusal (max-attempts 3 here) reaches the application with its whole body. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_17"})
    void theLastRefusalReachesTheApplicationWithItsBody(Jdk jdk) throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> new Reply(503, "0", 32))) {
            ChildJvm.Result run = ClientJvmScenarios.app(onClasspath(jdk), "default.min-sleep = 1s\ndefault.max-sleep = 4s\n"
                    + "default.max-attempts = 3\n", APP, "get", server.url("/records/1"));
            assertEquals(0, run.exitCode, run::toString);
            assertTrue(run.stdout.contains("STATUS 503 32"), () -> "the last refusal, its body whole\n" + run);
            assertEquals(3, server.requests(), run::toString);
            assertFalse(run.stderr.contains("internal failure"), run::toString);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_17", "JAVA_25"})
    void switchedOffTheSameRequestsAsWithoutTheAgent(Jdk jdk) throws Exception {
        ClientJvmScenarios.switchedOffTheSameRequestsAsWithoutTheAgent(CLIENT + " on " + jdk, () -> onClasspath(jdk), FETCHER, POLICY);
    }
}
