package dev.retryafter.agent.cli.attach;

import com.sun.tools.attach.VirtualMachine;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;

/**
 * {@code mode}, {@code enable}, {@code disable}, {@code release}, {@code forget}, {@code reload},
 * {@code policy}: a request left in the running agent's own directory, which it names in a system
 * property of its JVM (read over the attach mechanism, as {@code status} reads: nothing loaded, no port
 * opened), and its answer read back. The agent carries each out with its Agent MBean's operations
 * (CommandMailbox in the agent). Only this user can enter that directory: both sides check.
 */
final class Steering {

    /** Where the agent names its directory: CommandMailbox.PROPERTY (not named, so this class stands alone). */
    static final String PROPERTY = "retry-after-agent.commands";
    /** The agent looks every 200 ms; a JVM stopped in a debugger or swapping may take longer. */
    static final long PATIENCE_MILLIS = 30_000;
    private static final Set<PosixFilePermission> OWNER_ONLY = EnumSet.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);

    private Steering() {
    }

    /** Asks the agent in {@code pid}: {@code verb}, then {@code arguments}; prints its answer, and returns 0 or 1 as it says. */
    static int send(String pid, PrintStream out, String verb, String... arguments) throws Commands.Failure {
        VirtualMachine vm = Targets.connect(pid);
        Properties properties;
        try {
            properties = Targets.properties(vm, pid);
        } finally {
            Targets.detach(vm);
        }
        return send(pid, properties, out, verb, arguments);
    }

    /** The same, with the system properties of {@code pid} read already. */
    static int send(String pid, Properties properties, PrintStream out, String verb, String... arguments) throws Commands.Failure {
        String version = properties.getProperty(Targets.RUNNING_PROPERTY);
        if (version == null) {
            throw new Commands.Failure(Status.notOn(pid, properties));
        }
        String dir = properties.getProperty(PROPERTY);
        if (dir == null) {
            throw new Commands.Failure("retry-after-agent " + version + " in " + pid + " takes no commands yet: it looks for them"
                    + " a second after it starts, unless it could not make its directory (its log then says why) or it is older"
                    + " than this command line");
        }
        Path box = Paths.get(dir);
        ownDirectory(box, pid);
        String id = UUID.randomUUID().toString();
        Path request = box.resolve(id + ".request");
        Path response = box.resolve(id + ".response");
        StringBuilder text = new StringBuilder(verb);
        for (String argument : arguments) {
            text.append('\n').append(argument.replace('\n', ' '));
        }
        try {
            Path written = box.resolve(id + ".request-being-written");
            Files.write(written, text.toString().getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE_NEW);
            Files.move(written, request, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new Commands.Failure("cannot leave the request in " + box + ": " + e);
        }
        String answer = await(response, request, pid);
        int newline = answer.indexOf('\n');
        String said = newline < 0 ? "" : answer.substring(newline + 1);
        if (answer.startsWith("0")) {
            boolean lines = verb.equals("policy") || verb.equals("why"); // several lines, each its own
            out.println(lines ? said.replaceAll("\n+$", "") : pid + ": " + said);
            return 0;
        }
        throw new Commands.Failure(pid + ": " + said);
    }

    private static String await(Path response, Path request, String pid) throws Commands.Failure {
        long deadline = System.nanoTime() + PATIENCE_MILLIS * 1_000_000;
        while (true) {
            try {
                String answer = new String(Files.readAllBytes(response), StandardCharsets.UTF_8);
                Files.deleteIfExists(response);
                return answer;
            } catch (NoSuchFileException notYet) {
                // below
            } catch (IOException e) {
                throw new Commands.Failure("cannot read the answer of " + pid + " in " + response + ": " + e);
            }
            if (System.nanoTime() > deadline || !ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false)) {
                boolean taken = true;
                try {
                    taken = !Files.deleteIfExists(request);
                } catch (IOException e) {
                    // as if taken
                }
                throw new Commands.Failure("no answer from the agent in " + pid + " in " + PATIENCE_MILLIS / 1000 + " s ("
                        + (taken ? "it took the request; its log may say what came of it)" : "the request was never taken, and is withdrawn)"));
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                throw new Commands.Failure("interrupted while waiting for " + pid);
            }
        }
    }

    /** The directory must be this user's alone, as the agent made it: not a link, not another's, closed to others. */
    private static void ownDirectory(Path box, String pid) throws Commands.Failure {
        String user = System.getProperty("user.name", "");
        try {
            PosixFileAttributes attributes = Files.readAttributes(box, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!attributes.isDirectory() || !attributes.owner().getName().equals(user) || !OWNER_ONLY.containsAll(attributes.permissions())) {
                throw new Commands.Failure("the agent's directory " + box + " is not " + user + "'s alone; no request is left there");
            }
        } catch (IOException | UnsupportedOperationException e) {
            throw new Commands.Failure("cannot check the agent's directory " + box + " of " + pid + ": " + e);
        }
    }
}
