package dev.retryafter.it;

import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.VirtualMachine;
import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Inconclusive;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.MinSleepFloor;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent loaded into a JVM that is already running ({@code Agent-Class}), whose HttpClient was
 * built and used before: the loaded client classes are retransformed, and govern from then on.
 */
@Execution(ExecutionMode.CONCURRENT)
class AttachToARunningJvmTest {

    /**
     * java.net.http where there is one, Apache 4 on Java 8. The attaching JVM here is the test's (17);
     * an attacher that is itself a Java 8 JVM needs a JDK's {@code lib/tools.jar} on its class path.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Jdk.class)
    void attachedLaterItGovernsTheClientAlreadyInUse(Jdk jdk) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 1_000))) {
            ChildJvm child = new ChildJvm(jdk).classpathEntry(TestClasspath.testClasses());
            if (jdk.feature() >= 21) {
                child.jvmArg("-XX:+EnableDynamicAgentLoading"); // 21 and later warn without it; 8 and 11 do not know it
            }
            if (jdk.supports("jdk")) {
                child.main("dev.retryafter.it.apps.AttachLaterApp", portal.baseUrl(), "12");
            } else {
                child.classpath(name -> name.startsWith("httpclient-4") || name.startsWith("httpcore-4")
                                || name.startsWith("commons-logging") || name.startsWith("commons-codec"))
                        .main("dev.retryafter.it.apps.java8.AttachLaterApache4App", portal.baseUrl(), "12");
            }
            ChildJvm.Running app = child.start();
            String pid;
            try {
                pid = app.awaitLine("READY", Duration.ofSeconds(60)).split(" ")[1];
            } catch (AssertionError | RuntimeException e) {
                app.process.destroyForcibly();
                throw e;
            }

            Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
            Files.writeString(policy, LyingHeadersTest.POLICY);
            VirtualMachine vm = VirtualMachine.attach(pid);
            try {
                vm.loadAgent(ChildJvm.agentJar().toString(), policy.toString());
            } catch (AgentLoadException e) {
                // A Java 8 JVM answers a loaded agent with "0", where 9 and later answer "return code: 0":
                // the attach API of 9 and later reads that as a failure. Whether it loaded, the records tell.
                if (!(jdk == Jdk.JAVA_8 && "0".equals(e.getMessage()))) {
                    throw e;
                }
            } finally {
                vm.detach();
            }
            app.send("go");
            ChildJvm.Result result = app.finish();

            assertTrue(result.stdout.contains("before=200"), result::toString);
            assertTrue(result.stdout.contains("DONE fetched=12"), () -> "every record, so refusals were retried\n" + result);
            Inconclusive.unlessRefused(portal.stats().refusals, () -> portal.stats() + "\n" + result); // so this test could fail
            MinSleepFloor.assertKept(portal.stats().shortestGapAfterAnyRefusalMillis, LyingHeadersTest.MIN_SLEEP, () -> portal.stats() + "\n" + result);
            assertEquals(0, result.exitCode, result::toString);
        }
    }
}
