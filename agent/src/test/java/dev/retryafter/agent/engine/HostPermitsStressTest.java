package dev.retryafter.agent.engine;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Real threads on one host's permits, more of them than the cap: blocking and asynchronous
 * acquires, waiters cancelled or interrupted at random, and a thread retiring the permits whenever
 * they are idle (a retired host is replaced, as the store does). The test counts the permits its
 * threads hold: a count taken after the grant and given back before the release, so it never
 * exceeds what the permits count. The verdict counts events; it never times them, except to call a
 * wait that never ends a hang.
 */
class HostPermitsStressTest {

    /** More than the largest cap, so every cap has a queue. */
    private static final int WORKERS = 6;
    private static final int ROUNDS_PER_WORKER = 2_000;
    /** Far beyond any honest wait: reached, a waiter was left queued with nobody to wake it. */
    private static final long HANG_SECONDS = 20;

    private final Queue<String> violations = new ConcurrentLinkedQueue<>();
    private final Queue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
    private final Queue<Host> hosts = new ConcurrentLinkedQueue<>();
    private final AtomicReference<Host> current = new AtomicReference<>();
    private final AtomicLong granted = new AtomicLong();
    private final AtomicLong cancelled = new AtomicLong();
    private final AtomicLong interrupted = new AtomicLong();
    private final AtomicLong retirements = new AtomicLong();
    private volatile boolean workersDone;
    /** Set when workers hung: the rest stop, so none outlives the test. */
    private volatile boolean stopWorkers;

    /** Opened once every thread is started, so the workers overlap from their first round. */
    private final CountDownLatch start = new CountDownLatch(1);
    private ExecutorService handOvers;
    private int cap;
    /** Resizes, admitAllWaiters and uncapped acquires: the cap is then no bound on permits held. */
    private boolean capMoves;
    /** Workers pause between rounds, so the permits are often idle and retires race acquires. */
    private boolean idleOften;

    /** One host's permits and how many of them this test's threads hold now. */
    private static final class Host {
        final HostPermits permits;
        final AtomicInteger held = new AtomicInteger();
        /** A permit was granted here: retiring permits nobody used would race nothing. */
        volatile boolean used;

        Host(HostPermits permits) {
            this.permits = permits;
        }
    }

    @ParameterizedTest(name = "cap {0}")
    @ValueSource(ints = {1, 2, 4})
    void neverMoreThanTheCapHeldAndEveryAcquireGranted(int cap) throws Exception {
        run(cap, false, false);
    }

    @ParameterizedTest(name = "cap {0}")
    @ValueSource(ints = {1, 2, 4})
    void resizesAndObserveModeLeaveNoPermitHeldAndNoWaiterQueued(int cap) throws Exception {
        run(cap, true, false);
    }

    @ParameterizedTest(name = "cap {0}")
    @ValueSource(ints = {1, 2, 4})
    void anAcquireRacingARetireGetsNullOrMakesItRefuse(int cap) throws Exception {
        run(cap, false, true);
    }

    private void run(int cap, boolean capMoves, boolean idleOften) throws Exception {
        this.cap = cap;
        this.capMoves = capMoves;
        this.idleOften = idleOften;
        handOvers = Executors.newSingleThreadExecutor(new DaemonThreads("permits-stress-hand-overs"));
        current.set(newHost());
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < WORKERS; i++) {
            workers.add(thread("permits-stress-worker-" + i, this::work));
        }
        List<Thread> helpers = new ArrayList<>();
        helpers.add(thread("permits-stress-retirer", this::retireWhenIdle));
        if (capMoves) {
            helpers.add(thread("permits-stress-resizer", this::moveTheCap));
        }
        for (Thread t : helpers) {
            t.start();
        }
        for (Thread t : workers) {
            t.start();
        }
        long startedAt = System.nanoTime();
        start.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG_SECONDS);
        for (Thread t : workers) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
        List<String> hung = new ArrayList<>();
        for (Thread t : workers) {
            if (t.isAlive()) {
                hung.add(t.getName());
            }
        }
        workersDone = true;
        for (Thread t : helpers) {
            t.join(5_000);
        }
        if (!hung.isEmpty()) {
            Host host = current.get();
            String state = "inUse=" + host.permits.inUse() + ", max=" + host.permits.max() + ", idle=" + host.permits.isIdle();
            stopWorkers = true;
            for (Thread t : workers) {
                t.interrupt(); // lets them out of await, so they do not outlive the test
            }
            fail("cap " + cap + ": " + hung + " still waiting for a permit after " + HANG_SECONDS + " s (" + state + ")");
        }
        handOvers.shutdown();
        assertTrue(handOvers.awaitTermination(5, TimeUnit.SECONDS), "hand-overs still queued after the workers finished");

        assertTrue(unexpected.isEmpty(), () -> "unexpected: " + unexpected);
        assertTrue(violations.isEmpty(), () -> violations.size() + " violations, first: " + violations.peek());
        for (Host host : hosts) {
            assertEquals(0, host.held.get());
            assertEquals(0, host.permits.inUse(), "every permit came back");
            assertTrue(host.permits.isIdle(), "no waiter left queued");
        }
        assertEquals((long) WORKERS * ROUNDS_PER_WORKER, granted.get() + cancelled.get() + interrupted.get(),
                "every acquire was granted, cancelled or interrupted");
        System.out.println("permits stress, cap " + cap + (capMoves ? ", cap moving" : "") + (idleOften ? ", idle often" : "") + ": " + granted + " granted, "
                + cancelled + " cancelled, " + interrupted + " interrupted, " + retirements + " retired while idle, "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedAt) + " ms");
    }

    private Thread thread(String name, Runnable body) {
        Thread t = new Thread(() -> {
            try {
                start.await();
                body.run();
            } catch (Throwable e) {
                unexpected.add(e);
            }
        }, name);
        t.setDaemon(true);
        return t;
    }

    private Host newHost() {
        Host host = new Host(new HostPermits(cap, handOvers));
        hosts.add(host);
        return host;
    }

    /** A retired host is replaced by a new one, as the store does; null acquires then look again. */
    private void replace(Host retired) {
        Host fresh = new Host(new HostPermits(cap, handOvers));
        if (current.compareAndSet(retired, fresh)) {
            hosts.add(fresh);
        }
    }

    private void work() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int round = 0; round < ROUNDS_PER_WORKER && !stopWorkers; round++) {
            int kind = random.nextInt(20);
            for (;;) {
                Host host = current.get();
                boolean done;
                if (capMoves && kind == 0) {
                    done = holdUncapped(host);
                } else if (kind < 8) {
                    done = blocking(host, kind == 1);
                } else if (kind < 14) {
                    done = asynchronous(host);
                } else {
                    done = cancelling(host, random);
                }
                if (done) {
                    break;
                }
                replace(host);
            }
            if (idleOften) {
                LockSupport.parkNanos(random.nextInt(50_000));
            }
        }
    }

    /** False when the host was retired: no permit, look again. */
    private boolean blocking(Host host, boolean interruptFirst) {
        CompletableFuture<Void> permit = host.permits.acquire();
        if (permit == null) {
            return false;
        }
        if (interruptFirst) {
            Thread.currentThread().interrupt();
        }
        try {
            host.permits.await(permit);
        } catch (InterruptedException e) {
            Thread.interrupted();
            interrupted.incrementAndGet(); // await left the queue or gave the permit back
            return true;
        }
        Thread.interrupted(); // a permit granted at once returns with the flag still set
        hold(host);
        return true;
    }

    /** The permit's continuation holds and releases it, on whichever thread grants it: a hand-over. */
    private boolean asynchronous(Host host) {
        CompletableFuture<Void> permit = host.permits.acquire();
        if (permit == null) {
            return false;
        }
        CountDownLatch released = new CountDownLatch(1);
        permit.thenRun(() -> {
            hold(host);
            released.countDown();
        });
        try {
            if (!released.await(HANG_SECONDS, TimeUnit.SECONDS)) {
                violations.add("cap " + cap + ": an asynchronous acquire was not granted in " + HANG_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            violations.add("cap " + cap + ": interrupted waiting for an asynchronous grant");
        }
        return true;
    }

    /** Gives up the wait at once or after a moment; a cancel that fails means the permit is ours. */
    private boolean cancelling(Host host, ThreadLocalRandom random) {
        CompletableFuture<Void> permit = host.permits.acquire();
        if (permit == null) {
            return false;
        }
        if (random.nextBoolean()) {
            Thread.yield();
        }
        if (permit.cancel(false)) {
            cancelled.incrementAndGet();
        } else {
            hold(host);
        }
        return true;
    }

    private boolean holdUncapped(Host host) {
        CompletableFuture<Void> permit = host.permits.acquireUncapped();
        if (permit == null) {
            return false;
        }
        hold(host);
        return true;
    }

    private void hold(Host host) {
        granted.incrementAndGet();
        host.used = true;
        int held = host.held.incrementAndGet();
        if (!capMoves && held > cap) {
            violations.add("cap " + cap + ": " + held + " permits held at once");
        }
        if (host.permits.isRetired()) {
            violations.add("cap " + cap + ": a permit held on retired permits");
        }
        if (ThreadLocalRandom.current().nextInt(4) == 0) {
            Thread.yield(); // a longer hold, so waiters pile up
        }
        host.held.decrementAndGet();
        host.permits.release();
    }

    /** Retires the permits whenever nobody holds or waits for one: then no test thread may hold one either. */
    private void retireWhenIdle() {
        while (!workersDone) {
            Host host = current.get();
            if (host.used && !host.permits.isRetired() && host.permits.retireIfIdle()) {
                retirements.incrementAndGet();
                // Counted after the grant and given back before the release: zero when the permits were idle,
                // and no permit is granted once retired, so it stays zero.
                if (host.held.get() != 0) {
                    violations.add("cap " + cap + ": retired while a test thread held a permit");
                }
                replace(host);
            }
            if (idleOften) {
                Thread.yield(); // as often as it can, to meet acquires mid-flight
            } else {
                LockSupport.parkNanos(50_000);
            }
        }
    }

    /** Policy reloads and switches to observe mode, at random. */
    private void moveTheCap() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!workersDone) {
            HostPermits permits = current.get().permits;
            if (random.nextInt(8) == 0) {
                permits.admitAllWaiters();
            } else {
                permits.resize(1 + random.nextInt(cap + 2));
            }
            LockSupport.parkNanos(100_000);
        }
    }
}
