package dev.retryafter.agent.cli.attach;

import java.io.PrintStream;

/** The commands, their arguments and their exit codes: 0 done (or so already), 1 could not be done, 2 not understood. */
public final class Commands {

    static final String USAGE = String.join("\n",
            "usage: java -jar retry-after-agent.jar COMMAND    (a JDK 9 or later; the JVMs it acts on may be Java 8)",
            "  list                      this user's JVMs, read as jps reads them (none is attached to): PID; JAVA, its",
            "                            version; AGENT, 'yes VERSION' where the agent runs, else 'no'; MAIN, its main",
            "                            class or jar ('-' where it names none, e.g. started through JNI)",
            "  attach PID [ARGUMENT]     load the agent into a running JVM; ARGUMENT as after -javaagent:...jar= (a policy",
            "                            file, or key=value,...). To a JVM that has it already: reload PID FILE",
            "  status PID                the agent's line and its per-host table",
            "  mode PID observe|enforce  switch the agent's mode (a policy that sets its own mode keeps it)",
            "  disable PID               new requests run as if the agent were not there (it neither governs nor learns)",
            "  enable PID                new requests are governed again",
            "  release PID HOST          lift the hold on HOST (host:port), so its next request goes",
            "  hold PID HOST DURATION    hold HOST for DURATION (30m, 2h; at most 24h): its requests fail fast until then",
            "  forget PID HOST           drop all the agent knows of HOST, as if never seen",
            "  reload PID [FILE]         re-read the policy file in force, or read FILE from now on",
            "  policy PID [HOST]         the settings in force, of every policy or of the one governing HOST, and where",
            "                            each came from (file:line, agent argument, default.KEY, built-in default, a switch)",
            "  why PID HOST              why HOST's requests waited, cause by cause, and what the agent holds it to: its",
            "                            pace and the limit learned, the cap, category, refusals, holds, last decision",
            "  help                      this text",
            "Each command says in one line what changed, or why it could not. Exit code 0: done, or so already;",
            "1: could not be done; 2: not understood. Only attach loads anything into a JVM; none opens a port.");

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
                    if (args.length != 1) {
                        break;
                    }
                    return Targets.list(out, err);
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
                case "mode":
                    if (args.length != 3) {
                        break;
                    }
                    if (!args[2].equals("observe") && !args[2].equals("enforce")) {
                        throw new Failure(2, "mode '" + args[2] + "': expected observe or enforce");
                    }
                    return Steering.send(pid(args[1]), out, "mode", args[2]);
                case "enable":
                case "disable":
                    if (args.length != 2) {
                        break;
                    }
                    return Steering.send(pid(args[1]), out, command);
                case "release":
                case "forget":
                case "why":
                    if (args.length != 3) {
                        break;
                    }
                    return Steering.send(pid(args[1]), out, command, args[2]);
                case "hold":
                    if (args.length != 4) {
                        break;
                    }
                    return Steering.send(pid(args[1]), out, "hold", args[2], args[3]);
                case "reload":
                    if (args.length < 2 || args.length > 3) {
                        break;
                    }
                    return Steering.send(pid(args[1]), out, "reload", args.length == 3 ? Targets.existingFile(args[2]) : "");
                case "policy":
                    if (args.length < 2 || args.length > 3) {
                        break;
                    }
                    return Steering.send(pid(args[1]), out, "policy", args.length == 3 ? args[2] : "");
                case "help":
                case "-h":
                case "--help":
                    out.println(USAGE);
                    return 0;
                default:
                    err.println("retry-after-agent: unknown command '" + command + "'");
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
