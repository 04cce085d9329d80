package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Clients;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.ScraperRun;
import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static dev.retryafter.it.LyingHeadersTest.POLICY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HttpURLConnection (plain, jsoup, RestTemplate) and OkHttp 3.14, 4.12 and 5.x in child JVMs, on
 * Java 17 and 25: a body that cannot be sent twice never is, and switched off the agent changes
 * nothing. (Lying headers, the cap and holds: LyingHeadersTest, ConnectionsAndConcurrencyTest, HoldTest.)
 */
@Execution(ExecutionMode.CONCURRENT)
class NewClientsTest {

    private static final List<String> CLIENTS = List.of("urlconnection", "jsoup", "resttemplate",
            "okhttp3", "okhttp3-async", "okhttp", "okhttp-async", "okhttp5", "okhttp5-async");
    private static final List<String> POSTING = List.of("urlconnection", "okhttp3", "okhttp", "okhttp5");
    private static final int RECORDS = 12;

    static Stream<Arguments> clients() {
        return Stream.of(Jdk.JAVA_17, Jdk.JAVA_25).flatMap(jdk -> CLIENTS.stream().map(client -> Arguments.of(jdk, client)));
    }

    static Stream<Arguments> posting() {
        return Stream.of(Jdk.JAVA_17, Jdk.JAVA_25).flatMap(jdk -> POSTING.stream().map(client -> Arguments.of(jdk, client)));
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("posting")
    void aStreamingBodyIsNeverSentTwice(Jdk jdk, String client) throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("0"))) {
            Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
            Files.writeString(policy, POLICY);
            ChildJvm jvm = Clients.onClasspath(new ChildJvm(jdk).withAgent("config=" + policy), client.replace("-async", ""));
            ChildJvm.Result run = jvm.classpathEntry(TestClasspath.testClasses())
                    .main("dev.retryafter.it.apps.PostOnceApp", client.startsWith("okhttp") ? "okhttp" : client, server.url("/upload"))
                    .run();
            assertEquals(0, run.exitCode, run::toString);
            assertTrue(run.stdout.contains("STATUS 429"), () -> "the refusal went back to the application\n" + run);
            assertEquals(List.of("once"), server.bodies, () -> "sent once, by the agent and the client alike\n" + run);
        }
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("clients")
    void switchedOffTheSameRequestsAsWithoutTheAgent(Jdk jdk, String client) throws Exception {
        ScraperRun without;
        long requestsWithout;
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 60_000))) {
            without = ScraperRun.run(jdk, null, client, portal.baseUrl(), RECORDS);
            requestsWithout = portal.stats().requests;
            assertTrue(without.refused > 0, () -> "refusals reach the application\n" + without);
        }
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 60_000))) {
            ScraperRun off = ScraperRun.run(jdk, POLICY + "enabled = false\n", client, portal.baseUrl(), RECORDS);
            assertEquals(requestsWithout, portal.stats().requests, () -> "the same requests as with no agent at all\n" + off);
            assertEquals(without.fetched, off.fetched);
            assertEquals(without.refused, off.refused);
            assertTrue(off.jvm.stderr.contains("off (enabled=false"), () -> "says it is off\n" + off);
        }
    }
}
