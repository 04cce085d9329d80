package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.knowledge.InMemoryHostStateStore;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 9's stress test: real threads, real time, more hosts than the store keeps, blocking callers
 * interrupted at random and asynchronous calls abandoned at random. Whatever the interleaving, no
 * host's cap is exceeded, no request goes before a wait a refusal imposed, no permit is left held and
 * every future completes. Runs for a few seconds; the verdict counts events, it never times them.
 */
class EngineStressTest {

    private static final int HOSTS = 100;
    private static final int STORE_BOUND = 8;
    private static final long RUN_MILLIS = 3_000;

    private final ConcurrentHashMap<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    /** Per host, a lower bound of the latest not-before moment a refusal imposed, on the engine's clock. */
    private final ConcurrentHashMap<String, AtomicLong> notBefore = new ConcurrentHashMap<>();
    private final Queue<String> violations = new ConcurrentLinkedQueue<>();
    private final Queue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
    private final Queue<CompletableFuture<Void>> asyncCalls = new ConcurrentLinkedQueue<>();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong interrupted = new AtomicLong();
    private final AtomicLong abandoned = new AtomicLong();

    private RetryEngine engine;
    private ScheduledExecutorService scheduler;

    private static int capOf(int host) {
        return 1 + host % 3;
    }

    @Test
    void manyThreadsOverMoreHostsThanTheStoreKeepsNeverBreakACapOrAWait() throws Exception {
        scheduler = Executors.newScheduledThreadPool(2, task -> {
            Thread thread = new Thread(task, "stress-scheduler");
            thread.setDaemon(true);
            return thread;
        });
        InMemoryHostStateStore store = new InMemoryHostStateStore(STORE_BOUND, Clock.system());
        engine = RetryEngine.builder()
                .delays(Delays.using(scheduler))
                .store(store)
                .policies((host, port) -> Policy.builder().maxConcurrency(capOf(port)).minSleepMillis(1).maxSleepMillis(20)
                        .backoffBaseMillis(1).backoffCapMillis(10).maxAttempts(3).build())
                .build();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RUN_MILLIS);

        List<Thread> blocking = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            boolean async = t % 2 == 1;
            Thread worker = new Thread(() -> {
                while (System.nanoTime() < deadline) {
                    try {
                        if (async) {
                            asyncCall();
                        } else {
                            blockingCall();
                        }
                    } catch (Throwable e) {
                        unexpected.add(e);
                    }
                }
            }, (async ? "async-" : "blocking-") + t);
            (async ? workers : blocking).add(worker);
        }
        workers.addAll(blocking);
        workers.forEach(Thread::start);
        Thread interrupter = new Thread(() -> {
            while (System.nanoTime() < deadline) {
                blocking.get(ThreadLocalRandom.current().nextInt(blocking.size())).interrupt();
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "interrupter");
        interrupter.start();

        for (Thread worker : workers) {
            worker.join(120_000); // a bound on what cannot happen: the run itself lasts three seconds
            assertTrue(!worker.isAlive(), worker.getName() + " is stuck");
        }
        interrupter.join();
        for (CompletableFuture<Void> call : asyncCalls) {
            try {
                call.get(60, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                violations.add("an asynchronous call never completed");
            } catch (Exception expected) {
                // failed or cancelled: completed all the same
            }
        }
        scheduler.shutdownNow();

        assertTrue(unexpected.isEmpty(), () -> "unexpected: " + unexpected.peek());
        assertTrue(violations.isEmpty(), () -> violations.size() + " violations, e.g. " + violations.peek());
        for (HostState host : engine.hosts()) {
            assertTrue(host.permits().isIdle(), host.key() + " still has a permit held or a waiter: " + host.permits().inUse());
        }
        assertEquals(0, asyncCalls.stream().filter(f -> !f.isDone()).count(), "futures pending");
        System.out.printf("stress: %d sent, %d refused, %d interrupted, %d abandoned, %d async calls, %d hosts tracked at the end%n",
                sent.get(), refused.get(), interrupted.get(), abandoned.get(), asyncCalls.size(), store.size());
        // The run could have failed: it did each thing it checks.
        assertTrue(sent.get() > HOSTS, "sent " + sent);
        assertTrue(refused.get() > 0 && interrupted.get() > 0 && abandoned.get() > 0,
                "refused " + refused + ", interrupted " + interrupted + ", abandoned " + abandoned);
    }

    private void blockingCall() {
        int hostIndex = ThreadLocalRandom.current().nextInt(HOSTS);
        String key = "host-" + hostIndex + ".example:" + hostIndex;
        Call call = engine.open("host-" + hostIndex + ".example", hostIndex, true);
        do {
            long mustWaitUntil = notBeforeOf(key).get();
            try {
                call.awaitTurn();
            } catch (InterruptedException e) {
                Thread.interrupted();
                interrupted.incrementAndGet();
                return;
            } catch (HostHeldException e) {
                return;
            }
            went(key, hostIndex, mustWaitUntil);
            try {
                Thread.sleep(1); // the exchange
            } catch (InterruptedException e) {
                Thread.interrupted();
                interrupted.incrementAndGet();
            }
            respond(call, key);
        } while (call.retryRequested());
    }

    /** An asynchronous call as the JDK adapter drives one, abandoned now and then from another thread. */
    private void asyncCall() throws Exception {
        int hostIndex = ThreadLocalRandom.current().nextInt(HOSTS);
        String key = "host-" + hostIndex + ".example:" + hostIndex;
        Call call = engine.open("host-" + hostIndex + ".example", hostIndex, true);
        CompletableFuture<Void> done = new CompletableFuture<>();
        asyncCalls.add(done);
        attempt(call, key, hostIndex, done);
        if (ThreadLocalRandom.current().nextInt(4) == 0) {
            scheduler.schedule(() -> {
                abandoned.incrementAndGet();
                call.abandon();
            }, ThreadLocalRandom.current().nextInt(3), TimeUnit.MILLISECONDS);
        }
        try {
            done.get(60, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // the final check finds any that never completed
        }
    }

    private void attempt(Call call, String key, int hostIndex, CompletableFuture<Void> done) {
        attempt(call, key, hostIndex, done, Long.MIN_VALUE);
    }

    /** {@code ownUntil}: the moment the call's own wait ends (a wait raised for its last tries), beyond the host's. */
    private void attempt(Call call, String key, int hostIndex, CompletableFuture<Void> done, long ownUntil) {
        long mustWaitUntil = Math.max(notBeforeOf(key).get(), ownUntil);
        call.turn().whenComplete((went, failure) -> {
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
                if (!(cause instanceof CancellationException) && !(cause instanceof HostHeldException)) {
                    unexpected.add(cause);
                }
                done.complete(null);
                return;
            }
            went(key, hostIndex, mustWaitUntil);
            scheduler.schedule(() -> {
                try {
                    long nextOwnUntil = respond(call, key);
                    if (call.retryRequested()) {
                        attempt(call, key, hostIndex, done, nextOwnUntil);
                    } else {
                        done.complete(null);
                    }
                } catch (Throwable e) {
                    unexpected.add(e);
                    done.complete(null);
                }
            }, 1, TimeUnit.MILLISECONDS);
        });
    }

    private void went(String key, int hostIndex, long mustWaitUntil) {
        sent.incrementAndGet();
        int now = inFlight.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        if (now > capOf(hostIndex)) {
            violations.add(key + ": " + now + " in flight, cap " + capOf(hostIndex));
        }
        long at = engine.now();
        if (at < mustWaitUntil) {
            violations.add(key + ": sent " + (mustWaitUntil - at) + " ms before a refusal's wait ended");
        }
    }

    /**
     * A tenth of the responses refuse; the attempt ends (in flight drops first: the next one may go at once).
     * Returns when the call's own next attempt may go: MIN_VALUE, or a refusal's whole wait.
     */
    private long respond(Call call, String key) {
        boolean refuse = ThreadLocalRandom.current().nextInt(10) == 0;
        inFlight.get(key).decrementAndGet();
        long before = engine.now();
        call.onResponse(refuse ? 429 : 200, refuse ? (ThreadLocalRandom.current().nextBoolean() ? "0" : "1") : null);
        if (refuse) {
            refused.incrementAndGet();
            Wait wait = call.lastDecision().waitBeforeNextRequest();
            notBeforeOf(key).accumulateAndGet(before + wait.hostMillis(), Math::max);
            call.endAttempt();
            return before + wait.millis();
        }
        call.endAttempt();
        return Long.MIN_VALUE;
    }

    private AtomicLong notBeforeOf(String key) {
        return notBefore.computeIfAbsent(key, k -> new AtomicLong(Long.MIN_VALUE));
    }
}
