package dev.retryafter.it;

import dev.retryafter.it.harness.AttachedSuiteMain;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Paths;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The attached client suite ({@code dev.retryafter.it.attached}): every governed client in one JVM
 * that carries the built agent, on the build's Java and on the newest. It runs in a child JVM so that
 * it runs beside the other tests instead of after them; its summary and failures are in the message.
 */
@Execution(ExecutionMode.CONCURRENT)
class AttachedClientSuiteTest {

    private static final String[] PASSED_ON = {"agent.jar", "work.dir", "test.classes", "okhttp.folders"};

    @ParameterizedTest(name = "on {0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_17", "JAVA_25"})
    void everyGovernedClientPassesTheSuiteInAJvmThatCarriesTheAgent(Jdk jdk) throws Exception {
        String policy = Paths.get("src/test/resources/attached-policies.properties").toAbsolutePath().toString();
        ChildJvm child = new ChildJvm(jdk).withAgent(policy).jvmArg("-Dagent.attached=true")
                .classpathEntry(System.getProperty("test.classes", "target/test-classes"))
                .classpath(name -> true)
                .main(AttachedSuiteMain.class.getName(), "dev.retryafter.it.attached")
                .timeout(Duration.ofMinutes(15)); // a hang, not slowness
        for (String property : PASSED_ON) {
            if (System.getProperty(property) != null) {
                child.jvmArg("-D" + property + "=" + System.getProperty(property));
            }
        }
        ChildJvm.Result result = child.run();

        int summary = result.stdout.indexOf(AttachedSuiteMain.SUMMARY);
        assertTrue(summary >= 0, () -> "the suite ran to its summary on " + jdk + ":\nstdout (tail):\n" + tail(result.stdout)
                + "\nstderr (tail):\n" + tail(result.stderr));
        assertEquals(0, result.exitCode, () -> "the attached suite failed on " + jdk + " (the tests' own output: stdout.txt of its run under "
                + System.getProperty("work.dir", "target/it-work") + "):\n" + result.stdout.substring(summary));
    }

    private static String tail(String text) {
        return text.length() <= 20_000 ? text : text.substring(text.length() - 20_000);
    }
}
