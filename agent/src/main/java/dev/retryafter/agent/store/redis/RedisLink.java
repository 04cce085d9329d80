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

/**
 * The connection to the fleet's Redis, and the circuit around it. Redis is never a new way for a
 * request to fail: every call either answers within about the timeout or returns the caller's
 * "unavailable" value, and nothing it throws reaches the caller. A few failures in a row open the
 * circuit (a single slow answer does not); while it is open, calls return at once without touching
 * the network, and one background thread probes with backoff. When a probe answers, the listeners hear of it and
 * merge back what was learned meanwhile, while the circuit is still open to every other caller; only
 * then does it close. An outage is told in two lines, however often it flaps: see {@link OutageLines}.
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
    /** An outage that never settles (a Redis that keeps flapping) is recalled this often, not at each flap. */
    static final long UNSTEADY_REMINDER_MILLIS = TimeUnit.MINUTES.toMillis(10);

    /** What one call does with a connection. */
    interface Command<T> {
        T run(Jedis jedis);
    }

    /** Where the two lines go: down, and back. The default is the agent's log. */
    interface Events {
        void unavailable(String line);

        void restored(String line);

        /** Redis answered a command with an error about its data: see {@link CommandRefusals}. */
        void refused(String line);

        Events LOG = new Events() {
            @Override
            public void unavailable(String line) {
                AgentLog.logger().warn(line);
            }

            @Override
            public void restored(String line) {
                AgentLog.logger().info(line);
            }

            @Override
            public void refused(String line) {
                AgentLog.logger().warn(line);
            }
        };
    }

    private final JedisPool pool;
    private final OutageLines outages;
    private final CommandRefusals refusals;
    private final long steadyMillis;
    private final ScheduledExecutorService prober;
    private final List<Runnable> onRestored = new CopyOnWriteArrayList<>();
    private final Object circuit = new Object();
    private final AtomicInteger failuresInRow = new AtomicInteger();
    private volatile boolean open;
    private volatile boolean closed;
    /**
     * The prober's thread while it merges back what was learned during the outage: its calls reach
     * Redis while every other caller's still find the circuit open, so that no request reads Redis
     * before what this JVM imposed meanwhile is there. Null otherwise.
     */
    private volatile Thread merging;
    /** A call of the merge-back failed: the circuit stays open, and the next probe merges again. */
    private volatile boolean mergeFailed;
    // Guarded by circuit.
    private long retryMillis;

    RedisLink(RedisAddress address, int timeoutMillis, long steadyMillis, Events events) {
        this.outages = new OutageLines(address.toString(), events, UNSTEADY_REMINDER_MILLIS);
        this.refusals = new CommandRefusals(address.toString(), events);
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
        poolConfig.setMinIdle(0);
        poolConfig.setBlockWhenExhausted(true);
        poolConfig.setMaxWait(java.time.Duration.ofMillis(timeoutMillis));
        poolConfig.setJmxEnabled(false); // the application's JMX is not the agent's to fill
        poolConfig.setTestOnBorrow(false); // a broken connection fails its command, which opens the circuit
        this.pool = new JedisPool(poolConfig, new HostAndPort(address.host(), address.port()), client.build());
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, new DaemonThreads("retry-after-agent-fleet-store"));
        executor.setRemoveOnCancelPolicy(true);
        this.prober = executor;
    }

    /** Runs when Redis answers again after the circuit opened, before it closes: see {@link #mergedBack}. */
    void onRestored(Runnable listener) {
        onRestored.add(listener);
    }

    /** Whether calls reach Redis now. */
    boolean isAvailable() {
        return !open && !closed;
    }

    /**
     * {@code command} on a pooled connection, or {@code unavailable} when the circuit is open or the
     * call fails. An error about Redis's data (out of memory...) is not Redis being down: it is
     * answered the same way, and said once (see {@link CommandRefusals}).
     */
    <T> T call(Command<T> command, T unavailable) {
        return call(command, unavailable, e -> refusals.say(e, "this call fell back to this JVM's own knowledge"));
    }

    /**
     * The same, with what to do when Redis answers with an error about its data ({@code OOM},
     * {@code WRONGTYPE}...): Redis is up, so it counts as an answer, and {@code refused} hears of it
     * (it says so through {@link #sayRefused}); the caller gets {@code unavailable}.
     */
    <T> T call(Command<T> command, T unavailable, java.util.function.Consumer<JedisDataException> refused) {
        if (closed || open && (Thread.currentThread() != merging || mergeFailed)) {
            return unavailable;
        }
        try (Jedis jedis = pool.getResource()) {
            T result = command.run(jedis);
            answered();
            return result;
        } catch (JedisAccessControlException e) {
            trip(e); // a wrong password stays wrong: probe in the background, not on every request
            return unavailable;
        } catch (JedisDataException e) {
            if (CommandRefusals.isOutage(e)) {
                failed(e);
            } else {
                answered();
                refused.accept(e);
            }
            return unavailable;
        } catch (RuntimeException | LinkageError e) {
            failed(e);
            return unavailable;
        }
    }

    /** One line for a refusal of Redis's, once per kind: see {@link CommandRefusals}. */
    void sayRefused(JedisDataException error, String consequence) {
        refusals.say(error, consequence);
    }

    private void answered() {
        if (failuresInRow.get() != 0) { // read first: every call comes here, and a shared write costs every thread
            failuresInRow.set(0);
        }
    }

    private void failed(Throwable cause) {
        if (Thread.currentThread() == merging) {
            mergeFailed = true; // the circuit stays open; the next probe merges again
            return;
        }
        if (failuresInRow.incrementAndGet() >= FAILURES_TO_OPEN) {
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
            outages.opened(describe(cause), failuresInRow.getAndSet(0)); // before the probe can close it again
            scheduleProbe();
        }
    }

    private void scheduleProbe() {
        // Full jitter over the second half: a fleet that lost Redis together does not come back in step.
        long delay = retryMillis / 2 + (long) (ThreadLocalRandom.current().nextDouble() * (retryMillis / 2));
        try {
            prober.schedule(this::probe, delay, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            // Shut down: nothing left to reconnect.
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
                outages.probeFailed();
                retryMillis = Math.min(MAX_RETRY_MILLIS, retryMillis * 2);
                scheduleProbe();
                return;
            }
            failuresInRow.set(0);
            open = false;
        }
        long token = outages.closed();
        try {
            prober.schedule(() -> outages.steadySince(token), steadyMillis, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            // Shut down: nothing left to tell.
        }
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

    /** The kind of failure, never its full text: a message could quote a command, and commands carry keys. */
    private static String describe(Throwable cause) {
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String kind = root.getClass().getSimpleName();
        if (root instanceof java.net.SocketTimeoutException) {
            return "timed out: " + kind;
        }
        if (root instanceof java.net.ConnectException) {
            return "refused: " + kind;
        }
        return kind;
    }

    @Override
    public void close() {
        closed = true;
        prober.shutdownNow();
        pool.close();
    }
}
