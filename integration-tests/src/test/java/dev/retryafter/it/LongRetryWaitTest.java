package dev.retryafter.it;

import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.MinSleepFloor;
import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An {@code HttpURLConnection} request whose retry waits longer than the 30 s the agent gives an unfinished exchange
 * before it takes its permit back (35 s here; the default max-sleep is 300 s) is sent again governed, after the whole
 * wait. Before, that bound ended the attempt under the waiting thread: the agent logged an internal failure and the
 * JDK sent the request again with no turn taken.
 */
@Execution(ExecutionMode.CONCURRENT)
class LongRetryWaitTest {

    private static final long WAIT_MILLIS = 35_000;

    @Test
    void aRetryWaitLongerThanTheUnfinishedExchangeBoundIsKept() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n == 0 ? Reply.refused("0") : Reply.ok())) {
            Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
            Files.writeString(policy, "default.min-sleep = " + WAIT_MILLIS + "ms\ndefault.max-sleep = 60s\n");
            ChildJvm.Result result = new ChildJvm(Jdk.JAVA_17).classpath(TestClasspath.SCRAPER).classpathEntry(TestClasspath.testClasses())
                    .withAgent("config=" + policy).timeout(Duration.ofSeconds(150))
                    .main("dev.retryafter.it.apps.LongRetryWaitApp", server.url("/records/1")).run();
            assertEquals(0, result.exitCode, result::toString);
            assertTrue(result.stdout.contains("STATUS 200"), result::toString);
            assertEquals(2, server.requests(), result::toString);
            long gapMillis = (server.arrivals.get(1) - server.arrivals.get(0)) / 1_000_000;
            MinSleepFloor.assertKept(gapMillis, WAIT_MILLIS, () -> "sent again after the whole wait\n" + result);
            assertFalse(result.stderr.contains("internal failure"), result::toString);
            assertTrue(result.stderr.contains("2 requests, 1 refusals, 1 retries"), () -> "both attempts governed\n" + result);
        }
    }
}
