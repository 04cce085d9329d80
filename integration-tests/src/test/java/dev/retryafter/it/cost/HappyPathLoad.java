package dev.retryafter.it.cost;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The child JVM of a happy-path round: {@code threads} threads send GETs back to back through one
 * client, through a warm-up, and then in slices the benchmark asks for one at a time on standard
 * input, so that the arms of a cell, each in a JVM of its own, take turns slice by slice:
 * <pre>
 * READY warmUpMillis=3600
 * (stdin: slice)  SLICE requests=10234 nanos=1000123456 cpuNanos=1912345678
 * (stdin: quit)   RESULT client=jdk threads=4 total=90123
 * </pre>
 * Between slices every thread waits before its next request, so a JVM at rest sends nothing and
 * the arm whose turn it is has the machine (and the server) to itself. A slow stretch of the
 * machine then falls on the arms alike, where whole runs one after another each met their own.
 * The warm-up lasts until the JIT has all but stopped compiling, between its least and most seconds:
 * on a machine of few processors a JVM still compiling runs its clients at another speed (often
 * faster, probably because the processors then never idle between a request and its response), and
 * with the agent there is more to compile, so a fixed warm-up would compare a settled JVM with one
 * still compiling.
 * {@code cpuNanos} is the whole process's CPU time in the slice (JIT and GC included);
 * {@code total} counts every request, warm-up included, to check against the agent's own count.
 *
 * <p>Arguments: client, url, least and most warm-up seconds, slice seconds, threads.
 */
public final class HappyPathLoad {

    static final String READY = "READY";
    static final String SLICE = "SLICE";
    static final String RESULT = "RESULT";
    /** The commands, one a line on standard input; end of input also quits. */
    static final String NEXT_SLICE = "slice";
    static final String QUIT = "quit";

    /** The warm-up ends once the JIT compiles for less than this in a second (of all its threads' time). */
    static final long JIT_QUIET_BUDGET_MILLIS = 5;
    private static final long POLL_MILLIS = 250;
    /** Polls in a second. */
    private static final int QUIET_POLLS = 4;

    private final LongAdder completed = new LongAdder();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Gate gate = new Gate();
    private volatile boolean stopped;

    private HappyPathLoad() {
    }

    public static void main(String[] args) throws Exception {
        String client = args[0];
        URI url = URI.create(args[1]);
        double leastWarmUpSeconds = Double.parseDouble(args[2]);
        double mostWarmUpSeconds = Double.parseDouble(args[3]);
        double sliceSeconds = Double.parseDouble(args[4]);
        int threads = Integer.parseInt(args[5]);
        try (LoopbackClient http = LoopbackClient.open(client, url, threads)) {
            new HappyPathLoad().run(http, client, leastWarmUpSeconds, mostWarmUpSeconds, sliceSeconds, threads);
        }
    }

    private void run(LoopbackClient http, String client, double leastWarmUpSeconds, double mostWarmUpSeconds,
                     double sliceSeconds, int threads) throws Exception {
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread worker = new Thread(() -> sendUntilStopped(http), "load-" + (i + 1));
            workers.add(worker);
            worker.start();
        }
        gate.open();
        long warmUpMillis = warmUp(millis(leastWarmUpSeconds), millis(mostWarmUpSeconds), threads);
        gate.closeAndDrain(threads);
        failIfAnyFailed();
        System.out.printf(Locale.ROOT, "%s warmUpMillis=%d%n", READY, warmUpMillis);
        System.out.flush();
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String command = commands.readLine(); NEXT_SLICE.equals(command); command = commands.readLine()) {
            slice(millis(sliceSeconds), threads);
        }
        stopped = true;
        gate.open();
        for (Thread worker : workers) {
            worker.join();
        }
        failIfAnyFailed();
        System.out.printf(Locale.ROOT, "%s client=%s threads=%d total=%d%n", RESULT, client, threads, completed.sum());
    }

    /**
     * One measured slice: the threads let go, then held again. Requests are counted to the moment
     * the slice ends; its processor time runs until every thread has finished the request it was
     * in, which a few requests more or less of a slice's thousands cannot move.
     */
    private void slice(long millis, int threads) throws InterruptedException {
        long cpuBefore = processCpuNanos();
        long jitBefore = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
        long requestsBefore = completed.sum();
        long nanosBefore = System.nanoTime();
        gate.open();
        Thread.sleep(millis);
        // A slice holds at least one request: on a machine busy enough, a short one can hold none,
        // and "0 a second" would say the client stopped, which it did not. Bounded: a client that
        // really stopped still reads 0.
        long longest = System.nanoTime() + 60_000_000_000L;
        while (completed.sum() == requestsBefore && failure.get() == null && System.nanoTime() < longest) {
            Thread.sleep(10);
        }
        long requestsAfter = completed.sum();
        long nanosAfter = System.nanoTime();
        gate.closeAndDrain(threads);
        long cpuAfter = processCpuNanos();
        long jitAfter = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
        failIfAnyFailed();
        System.out.printf(Locale.ROOT, "%s requests=%d nanos=%d cpuNanos=%d jitMillis=%d%n", SLICE,
                requestsAfter - requestsBefore, nanosAfter - nanosBefore, cpuAfter - cpuBefore, jitAfter - jitBefore);
        System.out.flush();
    }

    private void failIfAnyFailed() {
        if (failure.get() != null) {
            throw new IllegalStateException("a request failed", failure.get());
        }
    }

    /**
     * Waits at least {@code least}, then until the JIT has spent under {@value #JIT_QUIET_BUDGET_MILLIS} ms
     * compiling in the last second, or {@code most} has passed. Not "nothing at all": a settled JVM
     * still compiles a method now and then, a millisecond at a time.
     */
    private long warmUp(long least, long most, int threads) throws InterruptedException {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        long start = System.nanoTime();
        while (elapsedMillis(start) < least) {
            Thread.sleep(POLL_MILLIS);
            pulseGate(threads);
        }
        Deque<Long> compiledMillis = new ArrayDeque<>(); // totals a poll apart, the oldest a second back
        compiledMillis.add(jit.getTotalCompilationTime());
        while (elapsedMillis(start) < most) {
            Thread.sleep(POLL_MILLIS);
            pulseGate(threads);
            compiledMillis.add(jit.getTotalCompilationTime());
            if (compiledMillis.size() > QUIET_POLLS + 1) {
                compiledMillis.removeFirst();
            }
            if (compiledMillis.size() == QUIET_POLLS + 1
                    && compiledMillis.getLast() - compiledMillis.getFirst() < JIT_QUIET_BUDGET_MILLIS) {
                break;
            }
        }
        return elapsedMillis(start);
    }

    /**
     * Holds every thread at the gate and lets them go again, as each slice will. Warmed without it,
     * the JIT compiled the request loop with the held path cut out, and the first slices' holds
     * threw that code away: Apache 5's whole call, the agent's advice inlined in it, compiled again
     * and again, up to half of the process's samples in the C2 compiler during measured slices.
     */
    private void pulseGate(int threads) throws InterruptedException {
        gate.closeAndDrain(threads);
        gate.open();
    }

    private static long elapsedMillis(long sinceNanos) {
        return (System.nanoTime() - sinceNanos) / 1_000_000;
    }

    private void sendUntilStopped(LoopbackClient http) {
        try {
            while (gate.pass() && !stopped) {
                int status = http.get();
                if (status != 200) {
                    throw new IllegalStateException("the loopback server answered " + status);
                }
                completed.increment();
            }
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
            stopped = true;
        } finally {
            gate.leave();
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static long millis(double seconds) {
        return Math.round(seconds * 1000);
    }

    /**
     * Where the threads wait between slices. Open, passing it is one volatile read; closed, a
     * thread waits on it, and {@link #closeAndDrain} returns once every thread is waiting or gone.
     */
    private static final class Gate {
        private volatile boolean open;
        /** Guarded by this. */
        private int waiting;

        /** Waits while closed; true, so it reads as a loop condition. */
        boolean pass() throws InterruptedException {
            if (open) {
                return true;
            }
            synchronized (this) {
                waiting++;
                notifyAll();
                try {
                    while (!open) {
                        wait();
                    }
                } finally {
                    waiting--;
                }
            }
            return true;
        }

        /** A thread that stopped for good counts as waiting from then on. */
        synchronized void leave() {
            waiting++;
            notifyAll();
        }

        synchronized void open() {
            open = true;
            notifyAll();
        }

        synchronized void closeAndDrain(int threads) throws InterruptedException {
            open = false;
            while (waiting < threads) {
                wait();
            }
        }
    }
}
