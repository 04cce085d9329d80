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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/** Finding JVMs, and loading the agent into one. */
final class Targets {

    /** What the agent sets once it is on: RetryAfterAgent.RUNNING_PROPERTY (not named, so this class stands alone). */
    static final String RUNNING_PROPERTY = "retry-after-agent.version";
    /** What the agent sets when a start did not go as asked: RetryAfterAgent.START_PROBLEM_PROPERTY. */
    static final String START_PROBLEM_PROPERTY = "retry-after-agent.start-problem";
    /** The performance counter the agent adds: ListMarker.COUNTER. */
    static final String MARKER_COUNTER = "retry-after-agent.version";

    private Targets() {
    }

    /**
     * Every JVM this user runs, with its Java version and whether the agent is in it, from the
     * performance counters each JVM publishes (its hsperfdata file, as {@code jps} and {@code jstat}
     * read it): no JVM is attached to and nothing is loaded into any. The agent adds the counter
     * {@value #MARKER_COUNTER} a second after it starts.
     */
    static int list(PrintStream out, PrintStream err) {
        long self = ProcessHandle.current().pid();
        List<VirtualMachineDescriptor> jvms = new ArrayList<>(VirtualMachine.list());
        jvms.sort(Comparator.comparingLong(d -> parseOr(d.id())));
        PerfCounters counters = PerfCounters.open();
        if (counters == null) {
            err.println("retry-after-agent: this java cannot read the JVMs' performance counters (run the command line as java -jar"
                    + " retry-after-agent.jar, whose manifest opens them to it): AGENT and JAVA say 'cannot tell'");
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"PID", "JAVA", "AGENT", "MAIN"});
        for (VirtualMachineDescriptor jvm : jvms) {
            if (parseOr(jvm.id()) == self) {
                continue;
            }
            String java = "cannot tell";
            String agent = "cannot tell";
            if (counters != null) {
                Map<String, String> read = counters.read(jvm.id(), MARKER_COUNTER, "java.property.java.version");
                if (read == null) {
                    continue; // gone since it was listed
                }
                java = read.getOrDefault("java.property.java.version", "-");
                agent = read.containsKey(MARKER_COUNTER) ? "yes " + read.get(MARKER_COUNTER) : "no";
            }
            String display = jvm.displayName().trim();
            rows.add(new String[] {jvm.id(), java, agent, display.isEmpty() ? "-" : display.split(" ")[0]});
        }
        int[] widths = new int[3];
        for (String[] row : rows) {
            for (int i = 0; i < widths.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            out.println(String.format("%-" + widths[0] + "s  %-" + widths[1] + "s  %-" + widths[2] + "s  %s", (Object[]) row));
        }
        return 0;
    }

    static int attach(String pid, String argument, PrintStream out) throws Commands.Failure {
        VirtualMachine vm = connect(pid);
        Properties before;
        String resolved = absolutePaths(argument);
        try {
            before = properties(vm, pid);
            if (before.getProperty(RUNNING_PROPERTY) == null) {
                return load(vm, pid, before, resolved, out);
            }
        } finally {
            detach(vm);
        }
        String running = before.getProperty(RUNNING_PROPERTY);
        if (resolved == null || resolved.isEmpty()) {
            out.println("already attached: retry-after-agent " + running + " is on in " + pid + "; nothing to change (to point it at a"
                    + " policy file: attach " + pid + " FILE, or reload " + pid + " FILE)");
            return 0;
        }
        String file = policyFileOf(resolved);
        if (file == null) {
            throw new Commands.Failure("retry-after-agent " + running + " is on in " + pid + " already, and is not loaded twice:"
                    + " a policy file can be pointed at (attach " + pid + " FILE, or config=FILE), other key=value pairs take a restart");
        }
        return Steering.send(pid, before, out, "reload", existingFile(file));
    }

    /** {@code path} as the target must be told it: absolute; a file that is not there is said here. */
    static String existingFile(String path) throws Commands.Failure {
        File file = new File(path);
        if (!file.isFile()) {
            throw new Commands.Failure(path + ": no such file");
        }
        return file.toPath().toAbsolutePath().normalize().toString();
    }

    /** The policy file of an argument that names one and nothing else; null otherwise. */
    static String policyFileOf(String argument) {
        if (!argument.contains("=")) {
            return argument.trim();
        }
        String[] pairs = argument.split(",");
        return pairs.length == 1 && pairs[0].trim().startsWith("config=") ? pairs[0].trim().substring("config=".length()) : null;
    }

    private static int load(VirtualMachine vm, String pid, Properties before, String resolved, PrintStream out) throws Commands.Failure {
        String javaVersion = before.getProperty("java.specification.version", "");
        if (feature(javaVersion) >= 21) {
            out.println("note: " + pid + " runs Java " + javaVersion + ", which prints a warning when an agent is loaded"
                    + " into a running JVM (JEP 451: a future Java will refuse it by default). Starting that JVM with"
                    + " -XX:+EnableDynamicAgentLoading silences the warning and keeps attaching possible then.");
        }
        String jar = ownJar();
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
        Properties after = properties(vm, pid);
        String now = after.getProperty(RUNNING_PROPERTY);
        String problem = after.getProperty(START_PROBLEM_PROPERTY);
        if (now == null) {
            throw new Commands.Failure("loaded into " + pid + ", but the agent did not switch on: "
                    + (problem != null ? problem : "its log in that JVM says why"));
        }
        if (problem != null) {
            throw new Commands.Failure("attached: retry-after-agent " + now + " is on in " + pid + ", but not as asked: " + problem);
        }
        out.println("attached: retry-after-agent " + now + " is on in " + pid
                + (resolved == null ? ", every host on the defaults" : ", with " + resolved));
        return 0;
    }

    static void detach(VirtualMachine vm) {
        try {
            vm.detach();
        } catch (IOException e) {
            // the target went away: nothing to detach from
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
