package dev.retryafter.agent.cli.attach;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;

/** Finding JVMs, and loading the agent into one. */
final class Targets {

    /** What the agent sets once it is on: RetryAfterAgent.RUNNING_PROPERTY (not named, so this class stands alone). */
    static final String RUNNING_PROPERTY = "retry-after-agent.version";

    private Targets() {
    }

    static int list(PrintStream out) {
        String self = Long.toString(ProcessHandle.current().pid());
        List<VirtualMachineDescriptor> jvms = VirtualMachine.list();
        jvms.sort(Comparator.comparingLong(d -> parseOr(d.id())));
        out.printf("%-8s %-11s %s%n", "PID", "AGENT", "MAIN CLASS");
        for (VirtualMachineDescriptor jvm : jvms) {
            if (jvm.id().equals(self)) {
                continue;
            }
            String agent;
            try {
                VirtualMachine vm = VirtualMachine.attach(jvm);
                try {
                    String version = vm.getSystemProperties().getProperty(RUNNING_PROPERTY);
                    agent = version == null ? "no" : "yes " + version;
                } finally {
                    vm.detach();
                }
            } catch (AttachNotSupportedException | IOException | RuntimeException e) {
                agent = "? (no attach)";
            }
            String display = jvm.displayName().isEmpty() ? "(unknown)" : jvm.displayName().split(" ")[0];
            out.printf("%-8s %-11s %s%n", jvm.id(), agent, display);
        }
        return 0;
    }

    static int attach(String pid, String argument, PrintStream out) throws Commands.Failure {
        VirtualMachine vm = connect(pid);
        try {
            Properties before = properties(vm, pid);
            String running = before.getProperty(RUNNING_PROPERTY);
            if (running != null) {
                out.println("already attached: retry-after-agent " + running + " is on in " + pid + "; not loading it twice");
                return 0;
            }
            String javaVersion = before.getProperty("java.specification.version", "");
            if (feature(javaVersion) >= 21) {
                out.println("note: " + pid + " runs Java " + javaVersion + ", which prints a warning when an agent is loaded"
                        + " into a running JVM (JEP 451: a future Java will refuse it by default). Starting that JVM with"
                        + " -XX:+EnableDynamicAgentLoading silences the warning and keeps attaching possible then.");
            }
            String jar = ownJar();
            String resolved = absolutePaths(argument);
            try {
                vm.loadAgent(jar, resolved);
            } catch (AgentLoadException e) {
                // A Java 8 JVM answers a loaded agent with "0", which the attach API of 9 and later reads as a failure.
                if (!("1.8".equals(javaVersion) && "0".equals(e.getMessage()))) {
                    throw new Commands.Failure("attach refused by " + pid + ": " + e.getMessage()
                            + (feature(javaVersion) >= 21 ? " (a JVM started with -XX:-EnableDynamicAgentLoading refuses every agent)" : ""));
                }
            } catch (AgentInitializationException e) {
                throw new Commands.Failure("the agent failed to start in " + pid + ": " + e.getMessage());
            } catch (IOException e) {
                throw new Commands.Failure("lost the connection to " + pid + " while loading the agent: " + e.getMessage());
            }
            String now = properties(vm, pid).getProperty(RUNNING_PROPERTY);
            if (now == null) {
                out.println("loaded into " + pid + ", but the agent did not switch on: its log in that JVM says why"
                        + " (a policy error names the file, line and key; or enabled=false)");
                return 1;
            }
            out.println("attached: retry-after-agent " + now + " is on in " + pid
                    + (resolved == null ? ", every host on the defaults" : ", with " + resolved));
            return 0;
        } finally {
            try {
                vm.detach();
            } catch (IOException e) {
                // the target went away: nothing to detach from
            }
        }
    }

    /** Attaches, or says plainly why not. */
    static VirtualMachine connect(String pid) throws Commands.Failure {
        if (!ProcessHandle.of(Long.parseLong(pid)).isPresent()) {
            throw new Commands.Failure("no process with pid " + pid);
        }
        if (Long.toString(ProcessHandle.current().pid()).equals(pid)) {
            throw new Commands.Failure(pid + " is this command itself");
        }
        try {
            return VirtualMachine.attach(pid);
        } catch (AttachNotSupportedException e) {
            throw new Commands.Failure("cannot attach to " + pid + ": " + e.getMessage()
                    + " (not a JVM, another user's, one started with -XX:+DisableAttachMechanism, or not yet up)");
        } catch (IOException e) {
            throw new Commands.Failure("cannot attach to " + pid + ": " + e.getMessage());
        }
    }

    static Properties properties(VirtualMachine vm, String pid) throws Commands.Failure {
        try {
            return vm.getSystemProperties();
        } catch (IOException e) {
            throw new Commands.Failure("cannot read the system properties of " + pid + ": " + e.getMessage());
        }
    }

    /** "1.8" is 8, "17" is 17; 0 when unknown. */
    static int feature(String specificationVersion) {
        String v = specificationVersion.startsWith("1.") ? specificationVersion.substring(2) : specificationVersion;
        return (int) parseOr(v);
    }

    private static long parseOr(String number) {
        try {
            return Long.parseLong(number);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** The jar this command runs from: the one to load. */
    private static String ownJar() throws Commands.Failure {
        try {
            Path jar = Paths.get(Targets.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (!Files.isRegularFile(jar)) {
                throw new Commands.Failure("run this from the agent jar (java -jar retry-after-agent.jar), not from " + jar);
            }
            return jar.toAbsolutePath().toString();
        } catch (URISyntaxException | RuntimeException e) {
            throw new Commands.Failure("cannot tell which jar this is: " + e);
        }
    }

    /**
     * The target's working directory is not this one: a policy file named relative to here, alone or
     * as {@code config=}, is passed as an absolute path.
     */
    static String absolutePaths(String argument) {
        if (argument == null || argument.isEmpty()) {
            return argument;
        }
        if (!argument.contains("=")) {
            return absoluteIfFile(argument);
        }
        StringBuilder out = new StringBuilder();
        for (String pair : argument.split(",", -1)) {
            if (out.length() > 0) {
                out.append(',');
            }
            out.append(pair.startsWith("config=") ? "config=" + absoluteIfFile(pair.substring("config=".length())) : pair);
        }
        return out.toString();
    }

    private static String absoluteIfFile(String path) {
        File file = new File(path);
        return file.isFile() ? file.toPath().toAbsolutePath().normalize().toString() : path;
    }
}
