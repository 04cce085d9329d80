package dev.retryafter.it.harness;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Starts a real JVM, on a chosen JDK, with or without the built agent, and collects what it printed.
 *
 * <p>At most {@link #AT_ONCE} test threads have child JVMs running at a time, whatever the test
 * parallelism: five JDKs multiply the children, and more JVMs than the cores can carry make every
 * wait a test measures longer. A thread's further children (a server and its clients) share its turn,
 * so a thread never waits on itself.
 */
public final class ChildJvm {

    private static final AtomicLong RUNS = new AtomicLong();

    /**
     * {@code -Dchild.jvms=N}; by default three per processor: children mostly wait out refusals (the
     * lying-header matrix's JVMs and their portals used a quarter of a core per second of test).
     */
    public static final int AT_ONCE = Integer.getInteger("child.jvms", 3 * Runtime.getRuntime().availableProcessors());
    private static final Semaphore TURNS = new Semaphore(AT_ONCE, true);
    /** Children of this thread still running; the turn is taken at the first and given back after the last. */
    private static final ThreadLocal<AtomicInteger> RUNNING = ThreadLocal.withInitial(AtomicInteger::new);

    /**
     * {@code -Dchild.jvm.flags}; by default the client compiler only and the serial collector. A test's JVM
     * lives seconds, and on two cores the suite is bound by CPU: C2's compiler threads and G1's start-up
     * spend work such a JVM never earns back (the lying-header matrix, 80 JVMs: 162 s of CPU -> 127 s).
     * A JVM whose costs are measured runs as users run it ({@link #measured()}).
     */
    static final String TEST_FLAGS = System.getProperty("child.jvm.flags", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC");

    private final Jdk jdk;
    private boolean measured;
    private final List<String> jvmArgs = new ArrayList<>();
    private final List<String> classpath = new ArrayList<>();
    private String mainClass;
    private final List<String> args = new ArrayList<>();
    private Duration timeout = Duration.ofSeconds(120);
    private final java.util.Map<String, String> environment = new java.util.HashMap<>();

    public ChildJvm(Jdk jdk) {
        this.jdk = jdk;
    }

    /** The agent jar as built by the agent module. */
    public static Path agentJar() {
        Path jar = Paths.get(System.getProperty("agent.jar", "../agent/target/retry-after-agent.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("no agent jar at " + jar.toAbsolutePath() + ": build with mvn verify, not mvn test");
        }
        return jar.toAbsolutePath();
    }

    /** {@code -javaagent:retry-after-agent.jar[=argument]}. */
    public ChildJvm withAgent(String argument) {
        jvmArgs.add("-javaagent:" + agentJar() + (argument == null ? "" : "=" + argument));
        return this;
    }

    /** Its costs are measured: it runs on the JVM's own defaults, not the suite's lean flags ({@link #TEST_FLAGS}). */
    public ChildJvm measured() {
        measured = true;
        return this;
    }

    public ChildJvm jvmArg(String arg) {
        jvmArgs.add(arg);
        return this;
    }

    /** Jars and folders from the test class path whose file name passes {@code filter}. */
    public ChildJvm classpath(Predicate<String> filter) {
        classpath.addAll(TestClasspath.entries(filter));
        return this;
    }

    public ChildJvm classpathEntry(String entry) {
        classpath.add(entry);
        return this;
    }

    public ChildJvm main(String mainClass, String... args) {
        this.mainClass = mainClass;
        this.args.addAll(Arrays.asList(args));
        return this;
    }

    public ChildJvm args(List<String> more) {
        args.addAll(more);
        return this;
    }

    public ChildJvm env(String name, String value) {
        environment.put(name, value);
        return this;
    }

    public ChildJvm timeout(Duration timeout) {
        this.timeout = timeout;
        return this;
    }

    public Result run() throws IOException, InterruptedException {
        return start().finish();
    }

    /** Starts the JVM and returns at once; its standard input is a pipe the test can write to. */
    public Running start() throws IOException {
        List<String> command = new ArrayList<>();
        command.add(jdk.javaOrSkip().toString());
        if (!measured) {
            for (String flag : TEST_FLAGS.split(" ")) {
                if (!flag.isEmpty()) {
                    command.add(flag);
                }
            }
        }
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(String.join(File.pathSeparator, classpath));
        command.add(mainClass);
        command.addAll(args);

        Path dir = workDir().resolve("run-" + RUNS.incrementAndGet());
        Files.createDirectories(dir);
        Path out = dir.resolve("stdout.txt");
        Path err = dir.resolve("stderr.txt");
        Files.write(dir.resolve("command.txt"), String.join(" ", command).getBytes(StandardCharsets.UTF_8));
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().putAll(jdk.environment());
        builder.environment().putAll(environment);
        AtomicInteger running = takeTurn();
        Process process;
        try {
            process = builder.start();
        } catch (IOException | RuntimeException e) {
            giveBack(running);
            throw e;
        }
        process.onExit().thenRun(() -> giveBack(running));
        return new Running(process, out, err, command);
    }

    /**
     * Runs {@code work} on this thread as part of {@code owner}'s turn: the children it starts share
     * that turn. For the JVMs of one fleet, started from threads of their own, which must all run at
     * once (a fleet of five on four turns would start its fifth only after the others ended).
     */
    public static <T> T onTurnOf(Thread owner, java.util.concurrent.Callable<T> work) throws Exception {
        AtomicInteger shared = TURN_OF.get(owner);
        if (shared == null) {
            throw new IllegalStateException(owner + " shares no turn: call shareTurn() on it first");
        }
        AtomicInteger own = RUNNING.get();
        RUNNING.set(shared);
        try {
            return work.call();
        } finally {
            RUNNING.set(own);
        }
    }

    /** Lets threads started by this one run children on its turn ({@link #onTurnOf}); undone by {@link #endSharing}. */
    public static void shareTurn() {
        TURN_OF.put(Thread.currentThread(), RUNNING.get());
    }

    public static void endSharing() {
        TURN_OF.remove(Thread.currentThread());
    }

    private static final java.util.Map<Thread, AtomicInteger> TURN_OF = new java.util.concurrent.ConcurrentHashMap<>();

    private static AtomicInteger takeTurn() throws IOException {
        AtomicInteger running = RUNNING.get();
        if (running.getAndIncrement() == 0) {
            try {
                // Bounded, so a child some test leaked running can slow the suite but never stop it.
                // (One more turn exists from then on: the suite is already failing.)
                if (!TURNS.tryAcquire(10, TimeUnit.MINUTES)) {
                    System.err.println("ChildJvm: no turn free in 10 minutes, a child JVM leaked? Starting anyway");
                }
            } catch (InterruptedException e) {
                running.decrementAndGet();
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted waiting for a turn to start a child JVM");
            }
        }
        return running;
    }

    private static void giveBack(AtomicInteger running) {
        if (running.decrementAndGet() == 0) {
            TURNS.release();
        }
    }

    /** A child JVM still running. */
    public final class Running {
        public final Process process;
        private final Path out;
        private final Path err;
        private final List<String> command;

        Running(Process process, Path out, Path err, List<String> command) {
            this.process = process;
            this.out = out;
            this.err = err;
            this.command = command;
        }

        /** Waits until the JVM has printed a line starting with {@code prefix}, and returns it. */
        public String awaitLine(String prefix, Duration patience) throws IOException, InterruptedException {
            return awaitLines(prefix, 1, patience).get(0);
        }

        /** Waits until the JVM has printed {@code count} lines starting with {@code prefix}, and returns the first {@code count}. */
        public List<String> awaitLines(String prefix, int count, Duration patience) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + patience.toNanos();
            while (System.nanoTime() < deadline) {
                String written = Files.readString(out);
                // Whole lines only: the last may be half written.
                List<String> lines = written.substring(0, written.lastIndexOf('\n') + 1).lines()
                        .filter(line -> line.startsWith(prefix)).toList();
                if (lines.size() >= count) {
                    return lines.subList(0, count);
                }
                if (!process.isAlive()) {
                    break;
                }
                Thread.sleep(50);
            }
            throw new AssertionError(count + " lines starting with " + prefix + " expected:\n" + Files.readString(out) + Files.readString(err));
        }

        /** What the JVM has written to standard error so far (the agent's log). */
        public String stderrSoFar() throws IOException {
            return Files.readString(err);
        }

        public void send(String line) throws IOException {
            process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
            process.getOutputStream().flush();
        }

        public Result finish() throws IOException, InterruptedException {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor();
                throw new AssertionError("child JVM did not finish in " + timeout + ": " + command
                        + "\nstdout:\n" + Files.readString(out) + "\nstderr:\n" + Files.readString(err));
            }
            return new Result(jdk, process.exitValue(), Files.readString(out), Files.readString(err), command);
        }
    }

    public static Path workDir() throws IOException {
        Path dir = Paths.get(System.getProperty("work.dir", "target/it-work"));
        Files.createDirectories(dir);
        return dir.toAbsolutePath();
    }

    /** What a child JVM did. */
    public static final class Result {
        public final Jdk jdk;
        public final int exitCode;
        public final String stdout;
        public final String stderr;
        public final List<String> command;

        Result(Jdk jdk, int exitCode, String stdout, String stderr, List<String> command) {
            this.jdk = jdk;
            this.exitCode = exitCode;
            this.stdout = stdout;
            this.stderr = stderr;
            this.command = command;
        }

        /** Lines the agent logged. */
        public List<String> agentLines() {
            return stderr.lines().filter(line -> line.contains("retry-after-agent")).collect(Collectors.toList());
        }

        @Override
        public String toString() {
            return "exit " + exitCode + " on " + jdk + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
        }
    }
}
