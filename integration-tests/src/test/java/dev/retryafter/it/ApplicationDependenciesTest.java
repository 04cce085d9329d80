package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An application with logback and its own Byte Buddy keeps both; the agent's own log lines still appear. */
@Execution(ExecutionMode.CONCURRENT)
class ApplicationDependenciesTest {

    /** Not on Java 8: the application's logback 1.5 needs Java 11. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, mode = EnumSource.Mode.EXCLUDE, names = "JAVA_8")
    void anApplicationKeepsItsOwnLoggingAndByteBuddy(Jdk jdk) throws Exception {
        // One request per 2 s: a busy machine once spaced the application's requests past a 500 ms window, and none was refused.
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 1, 2_000))) {
            Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
            Files.writeString(policy, "default.min-sleep = 300ms\ndefault.max-sleep = 1s\ndefault.window = 2s\ndefault.max-attempts = 8\n");
            ChildJvm.Result run = new ChildJvm(jdk)
                    .withAgent(policy.toString())
                    .jvmArg("-Dlogback.configurationFile=" + Path.of(TestClasspath.testClasses(), "app-logback.xml"))
                    .classpathEntry(TestClasspath.testClasses())
                    .classpath(name -> name.startsWith("logback-") || name.startsWith("slf4j-api") || name.startsWith("byte-buddy-1.14")
                            || name.startsWith("httpclient5") || name.startsWith("httpcore5"))
                    .main("dev.retryafter.it.apps.OwnDependenciesApp", portal.baseUrl())
                    .run();

            assertEquals(0, run.exitCode, run::toString);
            assertTrue(run.stdout.contains("APPLOG INFO OwnDependenciesApp - hello; byte-buddy-1.14.18.jar made app.Made"),
                    () -> "the application's own Byte Buddy and log format\n" + run);
            assertEquals(3, run.stdout.lines().filter(l -> l.equals("APPLOG INFO OwnDependenciesApp - java.net.http got 200")).count(),
                    run::toString);
            assertTrue(run.stdout.contains("APPLOG INFO OwnDependenciesApp - apache 5 got 200"), run::toString);
            assertFalse(run.stdout.contains("retry-after-agent"), () -> "the agent does not write into the application's log\n" + run);
            assertTrue(run.agentLines().stream().anyMatch(l -> l.contains("429 attempt 1/8")), () -> "the agent's own lines appear\n" + run);
            assertFalse(run.stderr.contains("SLF4J"), () -> "no slf4j complaints about providers\n" + run);
            assertTrue(portal.stats().refusals > 0, "the agent had something to do");
        }
    }
}
