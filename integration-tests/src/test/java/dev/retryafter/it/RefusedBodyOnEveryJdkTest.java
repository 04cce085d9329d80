package dev.retryafter.it;

import dev.retryafter.it.attached.JdkRefusedBodyAttachedTest.Body;
import dev.retryafter.it.attached.JdkRefusedBodyAttachedTest.RawServer;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A retried refusal's body that stalls or never ends does not hold {@code send} or
 * {@code sendAsync}, and one cut short does not fail them, on every JDK: the JDK's client changed how it treats a cancelled body in
 * Java 21, so the in-process test on the build's JDK is not enough (issue 9, item 7).
 */
@Execution(ExecutionMode.CONCURRENT)
class RefusedBodyOnEveryJdkTest {

    /** The application: one send, one sendAsync, each status printed. */
    public static final class Main {
        public static void main(String[] args) throws Exception {
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            HttpRequest request = HttpRequest.newBuilder(URI.create(args[0])).build();
            System.out.println("SEND " + client.send(request, BodyHandlers.ofString()).statusCode());
            System.out.println("ASYNC " + client.sendAsync(request, BodyHandlers.ofString()).get(60, TimeUnit.SECONDS).statusCode());
            System.exit(0);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_17", "JAVA_21", "JAVA_25"}) // java.net.http, in Java 17 bytecode
    void stalledEndlessAndCutRefusalsAreLeftAndTheRetriesSucceed(Jdk jdk) throws Exception {
        Body[] script = {Body.STALLS, Body.NEVER_ENDS, Body.OK, Body.CUT, Body.STALLS, Body.OK};
        try (RawServer server = new RawServer(n -> n < script.length ? script[n] : Body.OK)) {
            // Without the bound the child waits on the stalled body for ever: the timeout is for that, not for speed.
            ChildJvm.Result run = new ChildJvm(jdk).withAgent("default.min-sleep=100ms,default.max-sleep=1s,default.window=1s,default.max-attempts=3")
                    .classpathEntry(System.getProperty("test.classes")).timeout(Duration.ofSeconds(90))
                    .main(Main.class.getName(), "http://127.0.0.1:" + server.port() + "/records/1").run();
            assertEquals(0, run.exitCode, run::toString);
            assertTrue(run.stdout.contains("SEND 200"), run::toString);
            assertTrue(run.stdout.contains("ASYNC 200"), run::toString);
            assertEquals(script.length, server.requests(), run::toString);
        }
    }
}
