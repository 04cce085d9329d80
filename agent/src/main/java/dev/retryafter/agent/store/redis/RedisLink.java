package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.engine.DaemonThreads;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisDataException;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The connection to the fleet's Redis, and the circuit around it: every call answers within about
 * the timeout or with the caller's "unavailable", and nothing it throws reaches the caller. A few
 * failures in a row open the circuit (one slow answer does not); while open, calls return at once and
 * one background thread probes with backoff. When a probe answers, the listeners merge back what was
 * learned meanwhile while the circuit is still open to every other caller; only then does it close.
 */
final class RedisLink implements AutoCloseable {

    /** Short enough that a dead Redis costs a request no more than a slow loopback round trip. */
    static final int DEFAULT_TIMEOUT_MILLIS = 50;
    static final long FIRST_RETRY_MILLIS = 100;
    static final long MAX_RETRY_MILLIS = 5_000;
    /** Failed calls in a row that open the circuit: one 50 ms timeout is a slow answer, not an outage. */
    static final int FAILURES_TO_OPEN = 3;
    /** How long Redis must answer without the circuit opening again for an outage to be over. */
    static final long DEFAULT_STEADY_MILLIS = 15_000;
    /** An outage that never settles, or a refusal that goes on, is recalled this often, not at each flap or command. */
    static final long REMINDER_MILLIS = TimeUnit.MINUTES.toMillis(10);

    /** What one call does with a connection. */
    interface Command<T> {
        T run(Jedis jedis);
    }

    private final JedisPool pool;
    private final FleetLog log;
    private final long steadyMillis;
    private final ScheduledExecutorService prober;
    private final List<Runnable> onRestored = new CopyOnWriteArrayList<>();
    private final Object circuit = new Object();
    private final AtomicInteger failuresInRow = new AtomicInteger();
    private volatile boolean open;
    private volatile boolean closed;
    /** The prober's thread while it merges back: only its calls reach Redis, so no request reads Redis before the merge. */
    private volatile Thread merging;
    /** A call of the merge-back failed: the circuit stays open, and the next probe merges again. */
    private volatile boolean mergeFailed;
    // Guarded by circuit.
    private long retryMillis;

    RedisLink(RedisAddress address, int timeoutMillis, long steadyMillis, FleetLog.Events events) {
        this.log = new FleetLog(address.toString(), events, REMINDER_MILLIS);
        this.steadyMillis = steadyMillis;
        DefaultJedisClientConfig.Builder client = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(timeoutMillis)
                .socketTimeoutMillis(timeoutMillis)
                .database(address.database())
                .ssl(address.tls())
                .clientName("retry-after-agent")
                // RESP2 and no CLIENT SETINFO: one round trip fewer to connect, and any Redis since 2.6 will do.
                .protocol(RedisProtocol.RESP2)
                .clientSetInfoConfig(ClientSetInfoConfig.DISABLED);
        if (address.user() != null) {
            client.user(address.user());
        }
        if (address.password() != null) {
            client.password(address.password());
        }
        GenericObjectPoolConfig<Jedis> poolConfig = new GenericObjectPoolConfig<>();
        poolConfig.setMaxTotal(16);
        poolConfig.setMaxIdle(16);
        poolConfig.setMaxWait(java.time.Duration.ofMillis(timeoutMillis));
        poolConfig.setJmxEnabled(false); // the application's JMX is not the agent's to fill
        poolConfig.setTestOnBorrow(false); // a broken connection fails its command, which opens the circuit
        this.pool = new JedisPool(poolConfig, new HostAndPort(address.host(), address.port()), client.build());
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, new DaemonThreads("retry-after-agent-fleet-store"));
        executor.setRemoveOnCancelPolicy(true);
        this.prober = executor;
    }

    /** Runs when Redis answers again after the circuit opened, before it closes ({@link #mergedBack}), and before those added earlier. */
    void onRestored(Runnable listener) {
        onRestored.add(0, listener);
    }

    boolean isAvailable() {
        return !open && !closed;
    }

    /**
     * The one guarded call: {@code command} on a pooled connection, or {@code unavailable} when the
     * circuit is open or the call fails. An error about Redis's data ({@code OOM}, {@code WRONGTYPE}...)
     * is an answer, not an outage: {@code refused} hears of it (null: one line says so), the caller
     * gets {@code unavailable}.
     */
    <T> T call(Command<T> command, T unavailable, Consumer<JedisDataException> refused) {
        if (closed || open && (Thread.currentThread() != merging || mergeFailed)) {
            return unavailable;
        }
        try (Jedis jedis = pool.getResource()) {
            T result = command.run(jedis);
            answered();
            return result;
        } catch (JedisAccessControlException e) {
            trip(e); // a wrong password stays wrong: probe in the background, not on every request
        } catch (JedisDataException e) {
            if (FleetLog.isOutage(e)) {
                failed(e);
            } else {
                answered();
                if (refused != null) {
                    refused.accept(e);
                } else {
                    log.refused(e, "this call fell back to this JVM's own knowledge");
                }
            }
        } catch (RuntimeException | LinkageError e) {
            failed(e);
        }
        return unavailable;
    }

    FleetLog log() {
        return log;
    }

    private void answered() {
        if (failuresInRow.get() != 0) { // read first: every call comes here, and a shared write costs every thread
            failuresInRow.set(0);
        }
    }

    private void failed(Throwable cause) {
        if (Thread.currentThread() == merging || failuresInRow.incrementAndGet() >= FAILURES_TO_OPEN) {
            trip(cause);
        }
    }

    private void trip(Throwable cause) {
        if (Thread.currentThread() == merging) {
            mergeFailed = true; // still open: the merge-back's own failure opens nothing, and says nothing
            return;
        }
        synchronized (circuit) {
            if (open || closed) {
                return;
            }
            open = true;
            retryMillis = FIRST_RETRY_MILLIS;
            log.opened(describe(cause), failuresInRow.getAndSet(0)); // before the probe can close it again
            scheduleProbe();
        }
    }

    private void scheduleProbe() {
        // Full jitter over the second half: a fleet that lost Redis together does not come back in step.
        schedule(this::probe, retryMillis / 2 + (long) (ThreadLocalRandom.current().nextDouble() * (retryMillis / 2)));
    }

    private void schedule(Runnable task, long delayMillis) {
        try {
            prober.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            // Shut down: nothing left to reconnect or tell.
        }
    }

    private void probe() {
        if (closed) {
            return;
        }
        boolean answered;
        try {
            pool.clear(); // connections from before the failure may be dead ends: a restarted Redis has closed them
            try (Jedis jedis = pool.getResource()) {
                answered = "PONG".equalsIgnoreCase(jedis.ping());
            }
        } catch (RuntimeException | LinkageError e) {
            answered = false;
        }
        // Merged back before the circuit closes: a request that reads Redis finds this JVM's waits there.
        answered = answered && mergedBack();
        synchronized (circuit) {
            if (!answered) {
                log.probeFailed();
                retryMillis = Math.min(MAX_RETRY_MILLIS, retryMillis * 2);
                scheduleProbe();
                return;
            }
            failuresInRow.set(0);
            open = false;
        }
        long token = log.closed();
        schedule(() -> log.steadySince(token), steadyMillis);
    }

    /** Runs the listeners with the circuit still open to every other caller; false when a call of theirs failed. */
    private boolean mergedBack() {
        mergeFailed = false;
        merging = Thread.currentThread();
        try {
            for (Runnable listener : onRestored) {
                try {
                    listener.run();
                } catch (RuntimeException | LinkageError e) {
                    AgentLog.failure("merging back into the fleet store", e);
                }
            }
        } finally {
            merging = null;
        }
        return !mergeFailed;
    }

    /** The kind of failure, never its text: a message could quote a command, and commands carry keys. */
    private static String describe(Throwable cause) {
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String kind = root.getClass().getSimpleName();
        return root instanceof java.net.SocketTimeoutException ? "timed out: " + kind
                : root instanceof java.net.ConnectException ? "refused: " + kind : kind;
    }

    @Override
    public void close() {
        closed = true;
        prober.shutdownNow();
        pool.close();
    }
}
