package dev.retryafter.agent.cli.attach;

import com.sun.tools.attach.VirtualMachine;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * {@code status PID}: asks the agent in the target for the agent's line and one line per host, read
 * there from its MBeans, through the attach mechanism (the jar loaded again with a status request,
 * see {@code StatusRequest}), into a file only this user can read. The JDK's local JMX connector,
 * which this once started, would keep listening on every interface for the rest of the target's life.
 */
final class Status {

    /** What {@code StatusRequest.PREFIX} is (not named, so this class stands alone). */
    static final String REQUEST_PREFIX = "retry-after-agent-status:";

    private Status() {
    }

    static int print(String pid, PrintStream out, PrintStream err) throws Commands.Failure {
        VirtualMachine vm = Targets.connect(pid);
        String answer;
        try {
            Properties properties = Targets.properties(vm, pid);
            if (properties.getProperty(Targets.RUNNING_PROPERTY) == null) {
                throw new Commands.Failure("retry-after-agent is not on in " + pid + " (attach it with: attach " + pid + " [ARGUMENT])");
            }
            String javaVersion = properties.getProperty("java.specification.version", "");
            if (Targets.feature(javaVersion) >= 21) {
                err.println("note: " + pid + " runs Java " + javaVersion + ", which prints a warning in its log each time an agent"
                        + " is loaded into it, as status does to ask the agent (JEP 451); starting it with"
                        + " -XX:+EnableDynamicAgentLoading silences that");
            }
            answer = ask(vm, pid, javaVersion);
        } finally {
            try {
                vm.detach();
            } catch (IOException e) {
                // gone: nothing to detach from
            }
        }
        if (answer.isEmpty()) {
            throw new Commands.Failure("the agent in " + pid + " did not answer: it is older than this command, which needs"
                    + " the same version in the JVM (run that version's jar), or its log says why");
        }
        out.print(answer);
        return answer.startsWith("error:") ? 1 : 0;
    }

    private static String ask(VirtualMachine vm, String pid, String javaVersion) throws Commands.Failure {
        Path file;
        try {
            file = Files.createTempFile("retry-after-agent-status-", ".txt"); // this user's only, on POSIX
        } catch (IOException e) {
            throw new Commands.Failure("cannot make a file for the answer: " + e.getMessage());
        }
        try {
            Targets.loadAgent(vm, pid, javaVersion, REQUEST_PREFIX + pid + ":" + file.toAbsolutePath());
            return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new Commands.Failure("cannot read the answer of " + pid + ": " + e.getMessage());
        } finally {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // a temporary file left behind
            }
        }
    }
}
