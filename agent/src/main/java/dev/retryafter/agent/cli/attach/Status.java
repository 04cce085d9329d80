package dev.retryafter.agent.cli.attach;

import com.sun.tools.attach.VirtualMachine;

import java.io.IOException;
import java.io.PrintStream;
import java.util.Properties;

/**
 * {@code status PID}: the agent's line and one line per host, which the agent in the target keeps,
 * from its MBeans, in the JVM's agent properties (see {@code PublishedStatus}): read as {@code jcmd}
 * reads them, nothing loaded into the target and no port opened. The JDK's local JMX connector,
 * which this once started, kept listening on every interface for the rest of the target's life.
 */
final class Status {

    /** What {@code PublishedStatus.PROPERTY} is (not named, so this class stands alone). */
    static final String PROPERTY = "retry-after-agent.status";

    private Status() {
    }

    /** "not on", with why when a start of the agent said so, and how to attach it. */
    static String notOn(String pid, Properties properties) {
        String problem = properties.getProperty(Targets.START_PROBLEM_PROPERTY);
        return "retry-after-agent is not on in " + pid + (problem != null ? ": " + problem : "")
                + " (attach it with: attach " + pid + " [ARGUMENT])";
    }

    static int print(String pid, PrintStream out) throws Commands.Failure {
        VirtualMachine vm = Targets.connect(pid);
        String running;
        String status;
        try {
            Properties properties = Targets.properties(vm, pid);
            running = properties.getProperty(Targets.RUNNING_PROPERTY);
            if (running == null) {
                throw new Commands.Failure(notOn(pid, properties));
            }
            status = vm.getAgentProperties().getProperty(PROPERTY);
        } catch (IOException e) {
            throw new Commands.Failure("cannot read the agent properties of " + pid + ": " + e.getMessage());
        } finally {
            Targets.detach(vm);
        }
        if (status == null) {
            out.println("retry-after-agent " + running + " in " + pid + ": on; no MBeans yet (they appear two seconds after its"
                    + " first governed request)");
            return 0;
        }
        out.print("retry-after-agent " + running + " in " + pid + ": " + status);
        if (!status.contains("(no host tracked)")) {
            out.println("(why " + pid + " HOST: what its requests waited for, and each cause's reason)");
        }
        return 0;
    }
}
