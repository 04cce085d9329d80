package dev.retryafter.it;

import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Commons HttpClient 3.1, unchanged, on Java 8 and 17: the legacy scraper on it (no retry logic of its own; two workers),
 * a body it cannot send twice, and careless code under a cap of one. Its own test rather than a row of
 * {@code Clients.GOVERNED}, which would add it to every scenario on every JDK.
 */
class CommonsHttpClient3Test extends AbstractChildJvmClientSuite {

    CommonsHttpClient3Test() {
        // The demo's fetcher, as --client commons3 chooses it.
        super("Commons HttpClient", "commons3", "dev.retryafter.it.apps.java8.CommonsHttp3App");
    }

    @Override
    Stream<Arguments> lyingPortals() {
        return bothPortalsOn("3.1", Jdk.JAVA_8, Jdk.JAVA_17);
    }

    @Override
    int workers() {
        return 2;
    }

    /** Nor does its warning name the client. */
    @Override
    List<String> neverInTheLog() {
        return List.of("ungoverned", "internal failure", "Commons HttpClient 3");
    }

    @Override
    Stream<Setup> streamedBody() {
        return onJava8And17();
    }

    /** Its test application sends no string. */
    @Override
    Stream<Setup> replayableBody() {
        return Stream.empty();
    }

    Stream<Setup> onJava8And17() {
        return Stream.of(setup("3.1", Jdk.JAVA_8), setup("3.1", Jdk.JAVA_17));
    }

    /** Careless code keeps no permit for ever: 60 requests one after another under a cap of one all go out. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("onJava8And17")
    void carelessCodeUnderACapOfOneNeverWaitsForAPermitForEver(Setup setup) throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.ok())) {
            ChildJvm.Result run = app(setup, POLICY + "default.max-concurrency = 1\n", "careless", server.url("/records/1"), "60");
            assertEquals(0, run.exitCode, run::toString);
            assertTrue(run.stdout.contains("DONE 60 "), () -> "every request answered\n" + run);
            assertEquals(60, server.requests(), run::toString);
        }
    }
}
