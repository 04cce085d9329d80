package dev.retryafter.agent.cli.attach;

import java.io.PrintStream;

/** The commands, their arguments and their exit codes: 0 done, 1 failed, 2 not understood. */
public final class Commands {

    static final String USAGE = String.join("\n",
            "usage: java -jar retry-after-agent.jar COMMAND",
            "  list                  the JVMs this user can attach to: pid, main class, whether the agent is in it",
            "  attach PID [ARGUMENT] load the agent into a running JVM; ARGUMENT as after -javaagent:...jar=",
            "                        (a policy file, or key=value,...); a JVM that has it already is left alone",
            "  status PID            the agent's line and the per-host table of a running JVM, from its MBeans",
            "                        (read as jcmd reads a JVM's properties: nothing is loaded, no port is opened)",
            "  help                  this text",
            "Needs a JDK 9 or later (the attach API); it attaches to JVMs of Java 8 and later.");

    private Commands() {
    }

    public static int run(String[] args) {
        return run(args, System.out, System.err);
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        String command = args.length == 0 ? "help" : args[0];
        try {
            switch (command) {
                case "list":
                    return Targets.list(out);
                case "attach":
                    if (args.length < 2 || args.length > 3) {
                        break;
                    }
                    return Targets.attach(pid(args[1]), args.length == 3 ? args[2] : null, out);
                case "status":
                    if (args.length != 2) {
                        break;
                    }
                    return Status.print(pid(args[1]), out);
                case "help":
                case "-h":
                case "--help":
                    out.println(USAGE);
                    return 0;
                default:
                    err.println("unknown command '" + command + "'");
            }
        } catch (Failure e) {
            err.println("retry-after-agent: " + e.getMessage());
            return e.code;
        }
        err.println(USAGE);
        return 2;
    }

    private static String pid(String text) throws Failure {
        try {
            if (Long.parseLong(text) > 0) {
                return text;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new Failure(2, "'" + text + "' is not a process id");
    }

    /** A command that cannot go on, with what to tell the user. */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1;
        final int code;

        Failure(int code, String message) {
            super(message);
            this.code = code;
        }

        Failure(String message) {
            this(1, message);
        }
    }
}
