package dev.retryafter.it;

import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Off costs no more than opening the jar (issue 12): switched off by the policy file, the agent
 * argument or the environment, the agent loads its switch and nothing else of its own, no engine,
 * no Byte Buddy, no logger, and says it is off in one line. Counted in classes, not in time.
 */
@Execution(ExecutionMode.CONCURRENT)
class SwitchedOffTest {

    /**
     * What the switch needs: the premain class, the switch, the file's bounded read (its exception is
     * linked with it), the line reader, its values, the plain line.
     */
    private static final Set<String> THE_SWITCH = Set.of(
            "dev.retryafter.agent.AgentEntry",
            "dev.retryafter.agent.RetryAfterAgent",
            "dev.retryafter.agent.log.PlainLog",
            "dev.retryafter.agent.config.ConfigException",
            "dev.retryafter.agent.config.OffSwitch",
            "dev.retryafter.agent.config.PolicyLines",
            "dev.retryafter.agent.config.PolicyFile$Line",
            "dev.retryafter.agent.config.Values",
            "dev.retryafter.agent.io.SmallFile",
            "dev.retryafter.agent.io.SmallFile$TooLarge");
    private static final Pattern LOADED = Pattern.compile("\\[class,load\\] (\\S+) source:");

    @TempDir
    Path dir;

    /** The application: it only says it ran. */
    public static final class Main {
        public static void main(String[] args) {
            System.out.println("the application ran");
        }
    }

    private static ChildJvm child(Jdk jdk) {
        return new ChildJvm(jdk).jvmArg("-Xlog:class+load=info:stdout").classpathEntry(System.getProperty("test.classes"))
                .main(Main.class.getName());
    }

    private static void assertOnlyTheSwitchLoaded(ChildJvm.Result run, String offBy) {
        assertEquals(0, run.exitCode, run::toString);
        assertTrue(run.stdout.contains("the application ran"), run::toString);
        List<String> agentClasses = LOADED.matcher(run.stdout).results().map(m -> m.group(1))
                .filter(name -> name.startsWith("dev.retryafter.agent.")).collect(Collectors.toList());
        assertTrue(agentClasses.contains("dev.retryafter.agent.RetryAfterAgent"), () -> "the agent ran: " + agentClasses);
        List<String> beyond = agentClasses.stream().filter(name -> !THE_SWITCH.contains(name)).collect(Collectors.toList());
        assertEquals(List.of(), beyond, "classes of the agent beyond its switch");
        Matcher line = Pattern.compile("(?m)^\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z INFO retry-after-agent - off \\(enabled=false, from "
                + Pattern.quote(offBy) + "\\); no class is changed and no policy is read").matcher(run.stderr);
        assertTrue(line.find(), () -> "one line, in the agent's log format (its time in UTC), says it is off\n" + run.stderr);
        assertEquals(1, run.agentLines().size(), () -> "one line only\n" + run.stderr);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_17", "JAVA_21", "JAVA_25"}) // -Xlog and Java 17 bytecode
    void offInThePolicyFile(Jdk jdk) throws Exception {
        Path file = Files.writeString(dir.resolve("policies.properties"), "# staged\nenabled = false\ndefault.max-attempts = 2\n");
        assertOnlyTheSwitchLoaded(child(jdk).withAgent(file.toString()).run(), file + ":2");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_17", "JAVA_21", "JAVA_25"}) // -Xlog and Java 17 bytecode
    void offInTheAgentArgument(Jdk jdk) throws Exception {
        Path file = Files.writeString(dir.resolve("policies.properties"), "enabled = true\n");
        assertOnlyTheSwitchLoaded(child(jdk).withAgent("config=" + file + ",enabled=false").run(), "agent argument");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_17", "JAVA_21", "JAVA_25"}) // -Xlog and Java 17 bytecode
    void offInTheEnvironment(Jdk jdk) throws Exception {
        ChildJvm.Result run = child(jdk).withAgent("enabled=true").env("RETRY_AFTER_AGENT_ENABLED", "false").run();
        assertOnlyTheSwitchLoaded(run, "environment variable RETRY_AFTER_AGENT_ENABLED");
    }
}
