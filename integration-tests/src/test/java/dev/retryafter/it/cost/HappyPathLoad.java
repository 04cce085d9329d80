package dev.retryafter.it.cost;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The child JVM of a happy-path round: {@code threads} threads send GETs back to back through one
 * client, through a warm-up and then the measured window, and one line reports the window:
 * <pre>RESULT client=jdk threads=4 warmUpMillis=3600 requests=51234 nanos=3000123456 cpuNanos=5012345678 total=90123</pre>
 * The warm-up lasts until the JIT has all but stopped compiling, between its least and most seconds:
 * on a machine of few processors a JVM still compiling runs its clients at another speed (often
 * faster, probably because the processors then never idle between a request and its response), and
 * with the agent there is more to compile, so a fixed warm-up would compare a settled JVM with one
 * still compiling.
 * {@code cpuNanos} is the whole process's CPU time in the window (JIT and GC included);
 * {@code total} counts every request, warm-up included, to check against the agent's own count.
 *
 * <p>Arguments: client, url, least and most warm-up seconds, measured seconds, threads.
 */
public final class HappyPathLoad {

    static final String RESULT = "RESULT";

    /** The warm-up ends once the JIT compiles for less than this in a second (of all its threads' time). */
    static final long JIT_QUIET_BUDGET_MILLIS = 5;
    private static final long POLL_MILLIS = 250;
    /** Polls in a second. */
    private static final int QUIET_POLLS = 4;

    private final LongAdder completed = new LongAdder();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean stopped;

    private HappyPathLoad() {
    }

    public static void main(String[] args) throws Exception {
        String client = args[0];
        URI url = URI.create(args[1]);
        double leastWarmUpSeconds = Double.parseDouble(args[2]);
        double mostWarmUpSeconds = Double.parseDouble(args[3]);
        double measureSeconds = Double.parseDouble(args[4]);
        int threads = Integer.parseInt(args[5]);
        try (LoopbackClient http = LoopbackClient.open(client, url, threads)) {
            new HappyPathLoad().run(http, client, leastWarmUpSeconds, mostWarmUpSeconds, measureSeconds, threads);
        }
    }

    private void run(LoopbackClient http, String client, double leastWarmUpSeconds, double mostWarmUpSeconds,
                     double measureSeconds, int threads) throws Exception {
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread worker = new Thread(() -> sendUntilStopped(http), "load-" + (i + 1));
            workers.add(worker);
            worker.start();
        }
        long warmUpMillis = warmUp(millis(leastWarmUpSeconds), millis(mostWarmUpSeconds));
        long requestsBefore = completed.sum();
        long nanosBefore = System.nanoTime();
        long cpuBefore = processCpuNanos();
        Thread.sleep(millis(measureSeconds));
        // A window holds at least one request: on a machine busy enough, a short one can hold none,
        // and "0 a second" would say the client stopped, which it did not. Bounded: a client that
        // really stopped still reads 0.
        long longest = System.nanoTime() + 60_000_000_000L;
        while (completed.sum() == requestsBefore && failure.get() == null && System.nanoTime() < longest) {
            Thread.sleep(10);
        }
        long requestsAfter = completed.sum();
        long nanosAfter = System.nanoTime();
        long cpuAfter = processCpuNanos();
        stopped = true;
        for (Thread worker : workers) {
            worker.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a request failed", failure.get());
        }
        System.out.printf(Locale.ROOT, "%s client=%s threads=%d warmUpMillis=%d requests=%d nanos=%d cpuNanos=%d total=%d%n",
                RESULT, client, threads, warmUpMillis, requestsAfter - requestsBefore, nanosAfter - nanosBefore,
                cpuAfter - cpuBefore, completed.sum());
    }

    /**
     * Waits at least {@code least}, then until the JIT has spent under {@value #JIT_QUIET_BUDGET_MILLIS} ms
     * compiling in the last second, or {@code most} has passed. Not "nothing at all": a settled JVM
     * still compiles a method now and then, a millisecond at a time.
     */
    private static long warmUp(long least, long most) throws InterruptedException {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        long start = System.nanoTime();
        Thread.sleep(least);
        Deque<Long> compiledMillis = new ArrayDeque<>(); // totals a poll apart, the oldest a second back
        compiledMillis.add(jit.getTotalCompilationTime());
        while (elapsedMillis(start) < most) {
            Thread.sleep(POLL_MILLIS);
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

    private static long elapsedMillis(long sinceNanos) {
        return (System.nanoTime() - sinceNanos) / 1_000_000;
    }

    private void sendUntilStopped(LoopbackClient http) {
        try {
            while (!stopped) {
                int status = http.get();
                if (status != 200) {
                    throw new IllegalStateException("the loopback server answered " + status);
                }
                completed.increment();
            }
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
            stopped = true;
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static long millis(double seconds) {
        return Math.round(seconds * 1000);
    }
}
