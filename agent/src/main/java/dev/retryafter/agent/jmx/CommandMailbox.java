package dev.retryafter.agent.jmx;


import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Where {@code java -jar retry-after-agent.jar mode|enable|disable|forget|release|hold|reload|policy|why PID}
 * leaves its request, and finds the answer: a directory of this JVM's own,
 * {@code java.io.tmpdir/retry-after-agent-USER/PID-RANDOM}, only its user may enter (0700, checked before
 * every use on both sides), named in the system property {@value #PROPERTY}, which the command reads
 * over the attach mechanism as {@code status} does. Nothing is loaded into the JVM to steer it and no
 * port is opened, as the JDK's local JMX connector would be, on every interface, for the rest of the
 * JVM's life; and a JVM that refuses dynamically loaded agents can be steered all the same.
 *
 * <p>A request is a file {@code ID.request}: the verb, then its arguments, one a line. The answer is
 * {@code ID.response}: {@code 0} (done, or so already) or {@code 1} (could not), then one line that
 * says what changed or why not (several for {@code policy} and {@code why}). Each is written whole, then renamed into
 * place. Requests are carried out by the operations of the Agent MBean ({@link AgentView}), called in
 * this JVM, so a change made here is the change JMX makes, logged as made from the command line.
 *
 * <p>Its daemon thread also writes the mark {@code list} reads ({@link ListMarker}). It starts with the
 * agent and first looks a second later, out of the way of the application's start; then every
 * {@value #POLL_MILLIS} ms, a directory listing. Any failure is logged once and ends only this.
 */
public final class CommandMailbox implements Runnable {

    /** Where the command line finds the directory (Steering.PROPERTY in the command line). */
    public static final String PROPERTY = "retry-after-agent.commands";
    static final long FIRST_LOOK_MILLIS = 1_000;
    static final long POLL_MILLIS = 200;
    static final int MAX_REQUEST_BYTES = 64 * 1024;
    /** How often a live agent touches its directory, and how long one untouched is left before it is taken for a dead JVM's. */
    static final long TOUCH_MILLIS = 60_000;
    static final long STALE_MILLIS = 10 * TOUCH_MILLIS;
    private static final Set<PosixFilePermission> OWNER_ONLY = EnumSet.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);

    /** What the mailbox steers, and the agent's version, log and instrumentation, which the beans were made with. */
    private final ManagementBeans beans;

    private CommandMailbox(ManagementBeans beans) {
        this.beans = beans;
    }

    /** Starts the mailbox's daemon thread; never throws. */
    public static void start(ManagementBeans beans) {
        try {
            Thread thread = new Thread(new CommandMailbox(beans), "retry-after-agent-commands");
            thread.setDaemon(true);
            thread.start();
        } catch (Throwable t) {
            beans.log.warn("the command line cannot steer this JVM: the thread that takes its requests did not start (" + t + ")");
        }
    }

    @Override
    public void run() {
        Thread.currentThread().setContextClassLoader(null); // must not keep an application's loader reachable
        try {
            Thread.sleep(FIRST_LOOK_MILLIS);
        } catch (InterruptedException e) {
            return;
        }
        try {
            ListMarker.publish(beans.instrumentation, beans.version);
        } catch (Throwable t) {
            beans.log.debug("list cannot mark this JVM (its performance counters cannot be written: {})", String.valueOf(t));
        }
        Path box;
        try {
            box = open();
        } catch (Throwable t) {
            beans.log.info("the command line cannot steer this JVM ({}); JMX can", String.valueOf(t));
            return;
        }
        System.setProperty(PROPERTY, box.toString());
        Exiting.watch();
        long touched = System.currentTimeMillis();
        while (true) {
            try {
                Thread.sleep(POLL_MILLIS);
                if (!Files.isDirectory(box, LinkOption.NOFOLLOW_LINKS)) {
                    try {
                        box = open(); // a cleaner of the temporary directory took it, or it was taken for a dead JVM's
                    } catch (IllegalStateException exiting) { // deleteOnExit refuses once the JVM is shutting down
                        System.clearProperty(PROPERTY);
                        return;
                    }
                    System.setProperty(PROPERTY, box.toString());
                }
                if (System.currentTimeMillis() - touched > TOUCH_MILLIS) {
                    touched = System.currentTimeMillis();
                    Files.setLastModifiedTime(box, FileTime.fromMillis(touched));
                }
                look(box);
            } catch (InterruptedException e) {
                return;
            } catch (Throwable t) {
                System.clearProperty(PROPERTY);
                if (!Exiting.now) { // an exiting JVM's hooks delete the box under this loop: nothing to warn of
                    beans.log.warn("the command line can no longer steer this JVM ({}); JMX can", String.valueOf(t));
                }
                return;
            }
        }
    }

    /** This JVM's directory, made or checked, emptied of what an earlier JVM of the same pid left. */
    private static Path open() throws IOException {
        String user = System.getProperty("user.name", "");
        Path base = Paths.get(System.getProperty("java.io.tmpdir"), "retry-after-agent-" + user.replaceAll("[^A-Za-z0-9._-]", "_"));
        ownDirectory(base, user);
        pruneTheDead(base);
        // The pid names it for people; the rest keeps two JVMs of one pid (in two pid namespaces) apart.
        Path box = base.resolve(pid() + "-" + Integer.toHexString(new Random().nextInt()));
        ownDirectory(box, user);
        try {
            box.toFile().deleteOnExit(); // emptied by then: the command line deletes each answer it reads
        } catch (IllegalStateException exiting) {
            // The JVM is exiting and its hooks took the box away: no new one, and none left behind.
            Files.deleteIfExists(box);
            throw exiting;
        }
        return box;
    }

    /**
     * The directories of JVMs that are gone, which a JVM killed outright leaves behind: those not
     * touched for {@link #STALE_MILLIS}, since a live agent touches its own every minute. By age, not
     * by pid: a JVM in another pid namespace may share this temporary directory.
     */
    private static void pruneTheDead(Path base) {
        long staleBefore = System.currentTimeMillis() - STALE_MILLIS;
        List<Path> stale = new ArrayList<>();
        try (DirectoryStream<Path> boxes = Files.newDirectoryStream(base)) {
            for (Path box : boxes) {
                if (Files.getLastModifiedTime(box, LinkOption.NOFOLLOW_LINKS).toMillis() < staleBefore) {
                    stale.add(box);
                }
            }
        } catch (IOException | RuntimeException e) {
            return; // left for the next JVM
        }
        for (Path box : stale) {
            try {
                if (Files.isDirectory(box, LinkOption.NOFOLLOW_LINKS)) {
                    try (DirectoryStream<Path> left = Files.newDirectoryStream(box)) {
                        for (Path file : left) {
                            Files.deleteIfExists(file);
                        }
                    }
                }
                Files.deleteIfExists(box);
            } catch (IOException | RuntimeException e) {
                // another JVM pruning it at the same moment
            }
        }
    }

    /** Makes {@code dir} 0700, or checks that the one there is a directory of {@code user}'s alone: not a link, not another's. */
    static void ownDirectory(Path dir, String user) throws IOException {
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } catch (FileAlreadyExistsException e) {
            // checked below
        }
        PosixFileAttributes attributes = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attributes.isDirectory()) {
            throw new IOException(dir + " is not a directory");
        }
        if (!attributes.owner().getName().equals(user)) {
            throw new IOException(dir + " belongs to " + attributes.owner().getName() + ", not " + user);
        }
        if (!OWNER_ONLY.containsAll(attributes.permissions())) {
            throw new IOException(dir + " is open to others (" + PosixFilePermissions.toString(attributes.permissions()) + ")");
        }
    }

    private void look(Path box) throws IOException {
        List<Path> requests = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(box, "*.request")) {
            for (Path entry : entries) {
                requests.add(entry);
            }
        }
        for (Path request : requests) {
            byte[] bytes;
            try {
                if (Files.size(request) > MAX_REQUEST_BYTES) {
                    Files.deleteIfExists(request);
                    continue;
                }
                bytes = Files.readAllBytes(request);
                Files.deleteIfExists(request);
            } catch (IOException gone) {
                continue; // taken back by the command line
            }
            Outcome outcome;
            try {
                outcome = carryOut(new String(bytes, StandardCharsets.UTF_8).split("\n", -1));
            } catch (Throwable t) {
                outcome = new Outcome(false, "the agent failed to carry it out: " + t);
            }
            String name = request.getFileName().toString();
            String id = name.substring(0, name.length() - ".request".length());
            Path written = box.resolve(id + ".answer-being-written");
            Files.write(written, ((outcome.done ? "0" : "1") + "\n" + outcome.line).getBytes(StandardCharsets.UTF_8));
            Files.move(written, box.resolve(id + ".response"), StandardCopyOption.ATOMIC_MOVE);
        }
    }

    /** {@code lines}: the verb, then its arguments; an empty argument stands for none. */
    Outcome carryOut(String[] lines) {
        String verb = lines[0].trim();
        String argument = lines.length > 1 ? lines[1].trim() : "";
        AgentView agent = beans.agent();
        String via = AgentView.FROM_COMMAND_LINE;
        switch (verb) {
            case "mode":
                return agent.switchMode(argument, via);
            case "enable":
                return agent.switchEnabled(true, via);
            case "disable":
                return agent.switchEnabled(false, via);
            case "forget":
                return agent.forgetHost(argument, via);
            case "release":
                return agent.release(argument, via);
            case "hold":
                return agent.holdHost(argument, lines.length > 2 ? lines[2].trim() : "", via);
            case "reload":
                return agent.reloadPolicies(argument, via);
            case "policy":
                return new Outcome(true, agent.describePolicies(argument));
            case "why":
                return agent.explainHost(argument);
            default:
                return new Outcome(false, "the agent in this JVM (" + beans.version + ") does not know '" + verb + "' (request "
                        + Arrays.toString(lines) + "); use the command line of the same version");
        }
    }

    /** This JVM's pid: ProcessHandle from Java 9 on; /proc/self on a Java 8 on Linux; else the runtime's name. */
    static long pid() throws IOException {
        try {
            Class<?> handle = Class.forName("java.lang.ProcessHandle");
            Object current = handle.getMethod("current").invoke(null);
            return (Long) handle.getMethod("pid").invoke(current);
        } catch (ReflectiveOperationException e) {
            // Java 8
        }
        Path self = Paths.get("/proc/self");
        if (Files.isSymbolicLink(self)) {
            return Long.parseLong(Files.readSymbolicLink(self).toString());
        }
        String name = java.lang.management.ManagementFactory.getRuntimeMXBean().getName(); // "pid@host"
        return Long.parseLong(name.substring(0, name.indexOf('@')));
    }

    /** Whether the JVM has begun to exit: set by a shutdown hook, the moment the box's deleteOnExit may run. */
    private static final class Exiting implements Runnable {
        static volatile boolean now;

        static void watch() {
            try {
                Thread hook = new Thread(new Exiting(), "retry-after-agent-commands-exit");
                Runtime.getRuntime().addShutdownHook(hook);
            } catch (IllegalStateException alreadyExiting) {
                now = true;
            }
        }

        @Override
        public void run() {
            now = true;
        }
    }
}
