package dev.retryafter.it;

import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.MinSleepFloor;
import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import dev.retryafter.it.harness.SelfSignedTls;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * OkHttp 2.7.5 ({@code com.squareup.okhttp}), unchanged, on Java 8 and 17, with only its own jars and okio 1.6 on the
 * class path: refusals retried with {@code execute()} and {@code enqueue()} and every record arrives, min-sleep kept;
 * {@code Retry-After: 3600} never slept; OkHttp's own bodies sent again, the application's never twice; a cancel ends the
 * wait at once. It was named an ungoverned client before.
 */
@Execution(ExecutionMode.CONCURRENT)
class OkHttp2Test {

    private static final long MIN_SLEEP_MILLIS = 200;

    private static ChildJvm.Result run(Jdk jdk, String policy, String... args) throws Exception {
        return run(new ChildJvm(jdk), policy, args);
    }

    private static ChildJvm.Result run(ChildJvm jvm, String policy, String... args) throws Exception {
        Path file = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
        Files.writeString(file, policy);
        jvm.classpathEntry(TestClasspath.testClasses());
        TestClasspath.folder("okhttp-2").forEach(jvm::classpathEntry);
        return jvm.withAgent("config=" + file).timeout(Duration.ofSeconds(150)).main("dev.retryafter.it.apps.java8.OkHttp2App", args).run();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_8", "JAVA_17"})
    void refusalsAreRetriedAndEveryRecordArrives(Jdk jdk) throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n % 4 == 1 ? Reply.refused("0") : Reply.ok())) {
            ChildJvm.Result result = run(jdk, "default.min-sleep = " + MIN_SLEEP_MILLIS + "ms\ndefault.max-sleep = 2s\n",
                    "records", server.url("/records/"), "12");
            assertEquals(0, result.exitCode, result::toString);
            assertTrue(result.stdout.contains("EXECUTE 12 of 12") && result.stdout.contains("ENQUEUE 12 of 12"),
                    () -> "every record, through execute() and enqueue()\n" + result);
            int refusals = 0;
            for (int n = 0; n < server.requests(); n++) {
                refusals += n % 4 == 1 ? 1 : 0;
            }
            assertEquals(24 + refusals, server.requests(), () -> "each refusal sent again once, nothing more\n" + result);
            assertTrue(refusals > 0, result::toString);
            // execute() sends one at a time: each refused request's next comes after min-sleep.
            List<Long> arrivals = server.arrivals;
            for (int n = 1; n < 12 && n + 1 < arrivals.size(); n += 4) {
                long gap = (arrivals.get(n + 1) - arrivals.get(n)) / 1_000_000;
                int at = n;
                MinSleepFloor.assertKept(gap, MIN_SLEEP_MILLIS, () -> "after refusal " + at + ": " + gap + " ms\n" + result);
            }
            assertFalse(result.stderr.contains("ungoverned") || result.stderr.contains("internal failure"), result::toString);
        }
    }

    /**
     * {@code OkUrlFactory}'s {@code HttpURLConnection}, read by {@code getResponseCode()} then its stream: each refusal sent
     * again once, every record, min-sleep kept (and {@code Retry-After: 3600} never slept, below). A connection the application
     * {@code connect()}s first went before any turn, and is left as OkHttp runs it: each refusal goes back, nothing breaks.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_8", "JAVA_17"})
    void okUrlFactorysConnectionsAreGovernedFromTheirFirstRead(Jdk jdk) throws Exception {
        String policy = "default.min-sleep = " + MIN_SLEEP_MILLIS + "ms\ndefault.max-sleep = 2s\n";
        try (ScriptedServer server = new ScriptedServer(n -> n % 4 == 1 ? Reply.refused("0") : Reply.ok())) {
            ChildJvm.Result result = run(jdk, policy, "url-records", server.url("/records/"), "12");
            assertEquals(0, result.exitCode, result::toString);
            assertTrue(result.stdout.contains("URL 12 of 12"), () -> "every record\n" + result);
            int refusals = (server.requests() + 2) / 4;
            assertTrue(refusals > 0, result::toString);
            assertEquals(12 + refusals, server.requests(), () -> "each refusal sent again once, nothing more\n" + result);
            for (int n = 1; n + 1 < server.arrivals.size(); n += 4) {
                long gap = (server.arrivals.get(n + 1) - server.arrivals.get(n)) / 1_000_000;
                MinSleepFloor.assertKept(gap, MIN_SLEEP_MILLIS, () -> gap + " ms after a refusal\n" + result);
            }
            assertTrue(result.stderr.contains("429 attempt 1/"), () -> "governed: the agent decided on it\n" + result);
            assertFalse(result.stderr.contains("ungoverned") || result.stderr.contains("internal failure"), result::toString);
        }
        try (ScriptedServer server = new ScriptedServer(n -> n % 4 == 1 ? Reply.refused("0") : Reply.ok())) {
            ChildJvm.Result result = run(jdk, policy, "url-connected", server.url("/records/"), "12");
            assertEquals(0, result.exitCode, result::toString);
            assertTrue(result.stdout.contains("URL 9 of 12"), () -> "connected first: each refusal goes back\n" + result);
            assertEquals(12, server.requests(), result::toString);
            assertFalse(result.stderr.contains("internal failure"), result::toString);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_8", "JAVA_17"})
    void retryAfter3600IsNeverSleptAndTheLastRefusalComesBack(Jdk jdk) throws Exception {
        for (String mode : List.of("once", "url-once")) { // a call, and OkUrlFactory's connection
            try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("3600"))) {
                ChildJvm.Result result = run(jdk, "default.min-sleep = " + MIN_SLEEP_MILLIS + "ms\ndefault.max-sleep = 1s\ndefault.max-attempts = 3\n",
                        mode, server.url("/records/1"));
                assertEquals(0, result.exitCode, result::toString);
                assertTrue(result.stdout.contains("STATUS 429 ") || result.stdout.contains("FAILED dev.retryafter.agent.engine.HostHeldException"),
                        () -> "the last refusal, or a hold on a machine slow enough for the attempts to outlast max-sleep\n" + result);
                assertTrue(server.requests() <= 3, () -> mode + ": " + server.requests() + " requests\n" + result);
                assertTrue(result.stderr.contains("429 attempt 1/3 Retry-After=\"3600\""), () -> mode + ": governed, the agent decided on it\n" + result);
            }
        }
    }

    /**
     * OkHttp's own bodies of a string and of a form are sent again whole; a multipart (whose parts may be anyone's) and a
     * body of the application's own class never twice: their refusal goes back to the application.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_8", "JAVA_17"})
    void anOwnBodyIsSentAgainWholeAndTheApplicationsNeverTwice(Jdk jdk) throws Exception {
        String policy = "default.min-sleep = " + MIN_SLEEP_MILLIS + "ms\ndefault.max-sleep = 2s\n";
        for (String mode : List.of("post-string", "post-form")) {
            try (ScriptedServer server = new ScriptedServer(n -> n == 0 ? Reply.refused("0") : Reply.ok())) {
                ChildJvm.Result result = run(jdk, policy, mode, server.url("/upload"));
                assertTrue(result.stdout.contains("STATUS 200 "), result::toString);
                assertEquals(2, server.bodies.size(), result::toString);
                assertEquals(server.bodies.get(0), server.bodies.get(1), () -> mode + ": sent again whole\n" + result);
            }
        }
        for (String mode : List.of("post-multipart", "post-own")) {
            try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("0"))) {
                ChildJvm.Result result = run(jdk, policy, mode, server.url("/upload"));
                assertTrue(result.stdout.contains("STATUS 429 "), () -> mode + ": the refusal goes back to the application\n" + result);
                assertEquals(1, server.bodies.size(), () -> mode + "\n" + result);
                assertTrue(result.stderr.contains("the request body cannot be sent twice"), () -> "governed: the agent said why\n" + result);
            }
        }
    }

    /** Over HTTPS, OkUrlFactory's connection is an {@code HttpsURLConnection} that delegates to the same class: governed alike. */
    @Test
    void okUrlFactorysHttpsConnectionsAreGovernedToo() throws Exception {
        SelfSignedTls tls = SelfSignedTls.get();
        try (ScriptedServer server = new ScriptedServer(n -> n % 4 == 1 ? Reply.refused("0") : Reply.ok(), tls.server())) {
            ChildJvm jvm = new ChildJvm(Jdk.JAVA_17);
            tls.trustedByDefault().forEach(jvm::jvmArg);
            ChildJvm.Result result = run(jvm, "default.min-sleep = " + MIN_SLEEP_MILLIS + "ms\ndefault.max-sleep = 2s\n",
                    "url-records", server.url("/records/"), "12");
            assertEquals(0, result.exitCode, result::toString);
            assertTrue(server.url("/").startsWith("https:") && result.stdout.contains("URL 12 of 12"), () -> "every record\n" + result);
            assertEquals(12 + (server.requests() + 2) / 4, server.requests(), () -> "each refusal sent again once\n" + result);
            assertTrue(result.stderr.contains("429 attempt 1/"), () -> "governed\n" + result);
            assertFalse(result.stderr.contains("internal failure"), result::toString);
        }
    }

    /**
     * OkUrlFactory's connection disconnected (a watchdog's, say) while the agent waits to send it again: the wait ends at
     * once, nothing more is sent, and the connection fails from then on, as OkHttp fails one whose engine broke.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_8", "JAVA_17"})
    void aDisconnectEndsAConnectionsWaitAtOnce(Jdk jdk) throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("0"))) {
            ChildJvm.Result result = run(jdk, "default.min-sleep = 30s\ndefault.max-sleep = 60s\n", "url-disconnect", server.url("/records/1"));
            assertEquals(0, result.exitCode, result::toString);
            Matcher ended = Pattern.compile("DISCONNECT (\\d+) ms: (.*)").matcher(result.stdout);
            assertTrue(ended.find(), result::toString);
            assertTrue(ended.group(2).contains("disconnected while waiting"), result::toString);
            assertTrue(Long.parseLong(ended.group(1)) < 15_000, () -> "at the disconnect, not after the 30 s wait\n" + result);
            assertTrue(result.stdout.contains("AGAIN java.io.IOException: Canceled"), () -> "a later read fails alike\n" + result);
            assertEquals(1, server.requests(), () -> "nothing sent after the disconnect\n" + result);
            assertFalse(result.stderr.contains("internal failure"), result::toString);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_8", "JAVA_17"})
    void aCancelEndsTheWaitAtOnce(Jdk jdk) throws Exception {
        for (String mode : List.of("cancel", "cancel-enqueued")) {
            try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("0"))) {
                ChildJvm.Result result = run(jdk, "default.min-sleep = 30s\ndefault.max-sleep = 60s\n", mode, server.url("/records/1"));
                assertEquals(0, result.exitCode, result::toString);
                Matcher ended = Pattern.compile("CANCEL (\\d+) ms: (.*)").matcher(result.stdout);
                assertTrue(ended.find(), result::toString);
                assertTrue(ended.group(2).contains("Canceled"), () -> mode + "\n" + result);
                assertTrue(Long.parseLong(ended.group(1)) < 15_000, () -> mode + ": at the cancel, not after the 30 s wait\n" + result);
                assertEquals(1, server.requests(), () -> mode + ": nothing sent after the cancel\n" + result);
                assertTrue(result.stderr.contains("1 ended by the application while waiting"), () -> mode + "\n" + result);
            }
        }
    }
}
