package dev.retryafter.it;

import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Clients;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A request the application ends while the agent waits out a refusal, by a call timeout or a cancel or abort from
 * another thread, ends then, as without the agent, not when the agent's wait is over: each wait here is at least 30 s
 * (the policy's min-sleep), the call timeout 3 s, the cancel 2 s in (after a first call that loads the client). Before, each ended only after the wait (the client
 * noticed its cancel at the next attempt). OkHttp 3.14 (whose call timeout cancels the call's transmitter, not the
 * call), 4.12 and 5.x, {@code execute()} and {@code enqueue()}; Apache HttpClient 4's {@code abort()} and 5's
 * {@code cancel()}; Commons HttpClient 3's {@code abort()}; {@code HttpURLConnection.disconnect()}, which before let the JDK send the request again after the
 * wait.
 */
@Execution(ExecutionMode.CONCURRENT)
class CancelWhileWaitingTest {

    private static final long WAIT_MILLIS = 30_000;
    private static final Pattern ENDED = Pattern.compile("(EXECUTE|ENQUEUE|CANCEL|ABORT|DISCONNECT) (\\d+) ms: (.*)");
    private static final Pattern ENDED_WHILE_WAITING = Pattern.compile("(\\d+) ended by the application while waiting");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"okhttp3", "okhttp", "okhttp5"})
    void anOkHttpCallEndedByTheApplicationStopsWaitingAtOnce(String client) throws Exception {
        try (ScriptedServer warmUp = new ScriptedServer(n -> Reply.ok());
             ScriptedServer timedOut = new ScriptedServer(n -> Reply.refused("0"));
             ScriptedServer timedOutAsync = new ScriptedServer(n -> Reply.refused("0"));
             ScriptedServer cancelled = new ScriptedServer(n -> Reply.refused("0"))) {
            ChildJvm jvm = Clients.onClasspath(new ChildJvm(Jdk.JAVA_17), client).classpathEntry(TestClasspath.testClasses())
                    .jvmArg("-Dretry-after-agent.summary-interval-ms=500"); // the host's summary each half second, not each minute
            ChildJvm.Result result = jvm.withAgent("config=" + policy()).timeout(Duration.ofSeconds(150))
                    .main("dev.retryafter.it.apps.OkHttpCancelApp", warmUp.url("/"), timedOut.url("/records/1"), timedOutAsync.url("/records/2"),
                            cancelled.url("/records/3")).run();
            assertEndedAtOnce(result, 3);
            assertEquals(1, timedOut.requests(), "nothing sent after the call ended");
            assertEquals(1, timedOutAsync.requests());
            assertEquals(1, cancelled.requests());
            assertTrue(result.stderr.contains("1 request ended by the application while waiting (a cancel"),
                    () -> "the host's summary says so, as the host's waits outlast the call timeout\n" + result);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"apache4", "apache5", "commonshttp3", "urlconnection"})
    void aRequestAbortedByTheApplicationStopsWaitingAtOnce(String client) throws Exception {
        try (ScriptedServer warmUp = new ScriptedServer(n -> Reply.ok());
             ScriptedServer aborted = new ScriptedServer(n -> Reply.refused("0"))) {
            ChildJvm jvm = Clients.onClasspath(new ChildJvm(Jdk.JAVA_17), client).classpathEntry(TestClasspath.testClasses());
            ChildJvm.Result result = jvm.withAgent("config=" + policy()).timeout(Duration.ofSeconds(150))
                    .main("dev.retryafter.it.apps.AbortWhileWaitingApp", client, warmUp.url("/"), aborted.url("/records/1")).run();
            assertEndedAtOnce(result, 1);
            assertEquals(1, aborted.requests(), "nothing sent after the request was aborted");
        }
    }

    /**
     * Jetty 12, 9.4, 10 and 11: a request aborted while it waits to be sent again, and one aborted while it waits for its
     * first turn behind that refusal, each fail at once with the abort's cause, as Jetty fails a request aborted in its
     * queue. Before, each waited the agent's wait out; the first then failed, the second was sent.
     */
    @ParameterizedTest(name = "Jetty {0}")
    @ValueSource(strings = {"12", "9.4", "10", "11"})
    void aJettyRequestAbortedByTheApplicationStopsWaitingAtOnce(String jetty) throws Exception {
        try (ScriptedServer warmUp = new ScriptedServer(n -> Reply.ok());
             ScriptedServer aborted = new ScriptedServer(n -> Reply.refused("0"))) {
            ChildJvm jvm = new ChildJvm(jetty.equals("9.4") ? Jdk.JAVA_8 : Jdk.JAVA_17).classpathEntry(TestClasspath.testClasses());
            if (jetty.equals("12")) {
                jvm.classpath(name -> name.startsWith("jetty-") || name.startsWith("slf4j-api"));
            } else {
                TestClasspath.folder("jetty-" + jetty).forEach(jvm::classpathEntry);
            }
            ChildJvm.Result result = jvm.withAgent("config=" + policy()).timeout(Duration.ofSeconds(150))
                    .main("dev.retryafter.it.apps.java8.JettyAbortApp", jetty, warmUp.url("/"), aborted.url("/records/1")).run();
            assertEndedAtOnce(result, 2);
            assertEquals(1, aborted.requests(), "only the first request's refusal: nothing sent after the aborts");
        }
    }

    /** The same, for a redirect to another host whose follow-up waits for that host's turn. */
    @Test
    void aRedirectDisconnectedWhileItWaitsForItsTurnIsNotSent() throws Exception {
        try (ScriptedServer warmUp = new ScriptedServer(n -> Reply.ok());
             ScriptedServer target = new ScriptedServer(n -> Reply.refused("0"));
             ScriptedServer redirecting = new ScriptedServer(n -> Reply.redirect(target.url("/records/1")))) {
            ChildJvm jvm = Clients.onClasspath(new ChildJvm(Jdk.JAVA_17), "urlconnection").classpathEntry(TestClasspath.testClasses());
            ChildJvm.Result result = jvm.withAgent("config=" + policy()).timeout(Duration.ofSeconds(150))
                    .main("dev.retryafter.it.apps.AbortWhileWaitingApp", "urlconnection-redirect", warmUp.url("/"),
                            redirecting.url("/old/1"), target.url("/records/1")).run();
            assertEndedAtOnce(result, 1);
            assertEquals(1, redirecting.requests(), result::toString);
            assertEquals(1, target.requests(), () -> "only the first request's refusal; the redirect's follow-up never went\n" + result);
        }
    }

    private static Path policy() throws Exception {
        Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
        Files.writeString(policy, "default.min-sleep = " + WAIT_MILLIS + "ms\ndefault.max-sleep = 60s\n");
        return policy;
    }

    /** Each request ended as its client ends a cancelled or timed-out request, long before the agent's wait was over. */
    private static void assertEndedAtOnce(ChildJvm.Result result, int requests) {
        assertEquals(0, result.exitCode, result::toString);
        Matcher ended = ENDED.matcher(result.stdout);
        int calls = 0;
        while (ended.find()) {
            calls++;
            String how = ended.group(3);
            String expected = ended.group(1).equals("CANCEL") ? "Canceled" : ended.group(1).equals("ABORT") ? "aborted"
                    : ended.group(1).equals("DISCONNECT") ? "Socket closed" : "timeout";
            assertTrue(how.contains(expected), () -> ended.group() + "\n" + result);
            assertTrue(Long.parseLong(ended.group(2)) < WAIT_MILLIS / 2, () -> "ended at the application's word, not after the agent's "
                    + WAIT_MILLIS + " ms wait: " + ended.group() + "\n" + result);
        }
        assertEquals(requests, calls, result::toString);
        // And an operator sees them: the exit report counts each request the application ended while it waited.
        Matcher counted = ENDED_WHILE_WAITING.matcher(result.stderr);
        int told = 0;
        while (counted.find()) {
            told += Integer.parseInt(counted.group(1));
        }
        assertEquals(requests, told, result::toString);
    }
}
