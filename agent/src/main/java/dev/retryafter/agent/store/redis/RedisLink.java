package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.config.RedisAddress;
import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.engine.DaemonThreads;
import dev.retryafter.agent.store.fleet.FleetKnowledgeStore;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisDataException;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The connection to the fleet's Redis, the circuit around it, and what it says in the application's
 * log. Every call answers within about the timeout or with the caller's "unavailable", and nothing it
 * throws reaches the caller. A few failures in a row open the circuit (one slow answer does not);
 * while open, calls return at once and one background thread probes with backoff. When a probe
 * answers, the listeners merge back what was learned meanwhile while the circuit is still open to
 * every other caller; only then does it close.
 *
 * <p>The log, never with a stack trace: an outage is one line when it begins and one when it is over
 * (Redis answered steadily for a while), however often the circuit flaps in it; one that never settles
 * is recalled at most once per {@code remindMillis}. A refusal (Redis up, but answering {@code OOM},
 * {@code WRONGTYPE}, {@code MISCONF}...) is one line per kind, again only after {@code remindMillis}.
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
    /** Errors that say Redis cannot serve now (busy in a script, loading, a replica cut off): an outage, not a refusal. */
    private static final Set<String> OUTAGES = new HashSet<>(Arrays.asList(
            "BUSY", "LOADING", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "READONLY", "NOREPLICAS"));

    /** What a line tells of. */
    enum Kind { UNAVAILABLE, RESTORED, REFUSED }

    /** Where the lines go; the default is the agent's log, at INFO for a Redis back and WARN otherwise. */
    interface Events {
        void line(Kind kind, String line);

        Events LOG = (kind, line) -> {
            if (kind == Kind.RESTORED) {
                AgentLog.logger().info(line);
            } else {
                AgentLog.logger().warn(line);
            }
        };
    }

    private final JedisPool pool;
    private final String address;
    private final Events events;
    private final long steadyMillis;
    private final long remindNanos;
    private final ScheduledExecutorService prober;
    private final List<Runnable> onRestored = new CopyOnWriteArrayList<>();
    private final AtomicInteger failuresInRow = new AtomicInteger();
    private final ConcurrentHashMap<String, Long> refusalSaidAtNanos = new ConcurrentHashMap<>();
    private volatile boolean open;
    private volatile boolean closed;
    /** The prober's thread while it merges back: only its calls reach Redis, so no request reads Redis before the merge. */
    private volatile Thread merging;
    /** A call of the merge-back failed: the circuit stays open, and the next probe merges again. */
    private volatile boolean mergeFailed;
    private final Object circuit = new Object();
    // All guarded by circuit.
    private long retryMillis;
    private boolean inOutage;
    private long startedNanos;
    private long toldNanos;
    private long lastBackNanos;
    private long failedCalls;
    private int interruptions;
    /** Bumped at every opening: a steadiness check made before it is void. */
    private long openings;

    RedisLink(RedisAddress address, int timeoutMillis, long steadyMillis, Events events, long remindMillis) {
        this.address = address.toString();
        this.events = events;
        this.steadyMillis = steadyMillis;
        this.remindNanos = TimeUnit.MILLISECONDS.toNanos(remindMillis);
        DefaultJedisClientConfig.Builder client = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(timeoutMillis)
                .socketTimeoutMillis(timeoutMillis)
                .database(address.database())
                .ssl(address.tls())
                .clientName("retry-after-agent")
                .user(address.user()) // null, Jedis's own default, for none
                .password(address.password())
                // RESP2 and no CLIENT SETINFO: one round trip fewer to connect, and any Redis since 2.6 will do.
                .protocol(RedisProtocol.RESP2)
                .clientSetInfoConfig(ClientSetInfoConfig.DISABLED);
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
    <T> T call(Function<Jedis, T> command, T unavailable, Consumer<JedisDataException> refused) {
        if (closed || open && (Thread.currentThread() != merging || mergeFailed)) {
            return unavailable;
        }
        try (Jedis jedis = pool.getResource()) {
            T result = command.apply(jedis);
            answered();
            return result;
        } catch (JedisAccessControlException e) {
            trip(e); // a wrong password stays wrong: probe in the background, not on every request
        } catch (JedisDataException e) {
            if (isOutage(e)) {
                failed(e);
            } else {
                answered();
                if (refused != null) {
                    refused.accept(e);
                } else {
                    refused(e, "this call fell back to this JVM's own knowledge");
                }
            }
        } catch (RuntimeException | LinkageError e) {
            failed(e);
        }
        return unavailable;
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
            opened(describe(cause), failuresInRow.getAndSet(0)); // before the probe can close it again
            scheduleProbe();
        }
    }

    private void scheduleProbe() {
        // Full jitter over the second half: a fleet that lost Redis together does not come back in step.
        FleetKnowledgeStore.schedule(prober, this::probe, retryMillis / 2 + (long) (ThreadLocalRandom.current().nextDouble() * (retryMillis / 2)));
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
                failedCalls++;
                retryMillis = Math.min(MAX_RETRY_MILLIS, retryMillis * 2);
                scheduleProbe();
                return;
            }
            failuresInRow.set(0);
            open = false;
        }
        long token = closed();
        FleetKnowledgeStore.schedule(prober, () -> steadySince(token), steadyMillis);
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

    // ---- the log

    /** The circuit opened after {@code failures} failed calls: one line unless its outage was told already. */
    void opened(String cause, int failures) {
        String line = null;
        synchronized (circuit) {
            long now = System.nanoTime();
            openings++;
            if (!inOutage) {
                inOutage = true;
                startedNanos = now;
                toldNanos = now;
                failedCalls = 0;
                interruptions = 0;
                line = "fleet store " + address + " unavailable (" + cause
                        + "); carrying on with this JVM's own knowledge, reconnecting in the background";
            } else if (now - toldNanos >= remindNanos) {
                toldNanos = now;
                line = String.format(Locale.ROOT, "fleet store %s still unsteady: %d interruptions and %d failed calls in %.1f min;"
                        + " shared between them, this JVM's own knowledge during them", address, interruptions + 1,
                        failedCalls + Math.max(1, failures), TimeUnit.NANOSECONDS.toMillis(now - startedNanos) / 60_000.0);
            }
            failedCalls += Math.max(1, failures);
            interruptions++;
        }
        if (line != null) {
            events.line(Kind.UNAVAILABLE, line);
        }
    }

    /** The circuit closed: returns the token that {@link #steadySince} checks, once Redis has had time to fail again. */
    long closed() {
        synchronized (circuit) {
            lastBackNanos = System.nanoTime();
            return openings;
        }
    }

    /** The circuit has not opened since {@code token} was given: the outage is over, and one line says so. */
    void steadySince(long token) {
        String line;
        synchronized (circuit) {
            if (!inOutage || token != openings) {
                return;
            }
            inOutage = false;
            double seconds = TimeUnit.NANOSECONDS.toMillis(lastBackNanos - startedNanos) / 1000.0;
            line = String.format(Locale.ROOT, "fleet store %s back after %.1f s unavailable (%s, %d failed call%s); sharing again",
                    address, seconds, interruptions == 1 ? "one interruption" : interruptions + " interruptions",
                    failedCalls, failedCalls == 1 ? "" : "s");
        }
        events.line(Kind.RESTORED, line);
    }

    /** One line for {@code error}'s kind, with what the store does about it, unless one was said lately. */
    void refused(JedisDataException error, String consequence) {
        String code = code(error);
        long now = System.nanoTime();
        Long said = refusalSaidAtNanos.get(code);
        if (said != null && now - said < remindNanos) {
            return;
        }
        if (said == null ? refusalSaidAtNanos.putIfAbsent(code, now) == null : refusalSaidAtNanos.replace(code, said, now)) {
            events.line(Kind.REFUSED, "fleet store " + address + " refused a command: " + text(error) + "; " + consequence);
        }
    }

    static boolean isOutage(JedisDataException e) {
        return OUTAGES.contains(code(e));
    }

    /** The error's code, its first word as Redis writes it: {@code OOM}, {@code WRONGTYPE}, {@code ERR}. */
    static String code(JedisDataException e) {
        String text = text(e);
        int space = text.indexOf(' ');
        return (space < 0 ? text : text.substring(0, space)).toUpperCase(Locale.ROOT);
    }

    /** The error as Redis wrote it, without the script's digest and line Redis adds, and bounded. */
    private static String text(JedisDataException e) {
        String message = e.getMessage() == null ? "" : e.getMessage().trim();
        int script = message.indexOf(" script: ");
        message = script >= 0 ? message.substring(0, script) : message;
        int newline = message.indexOf('\n');
        message = newline >= 0 ? message.substring(0, newline) : message;
        return message.length() > 200 ? message.substring(0, 200) + "..." : message;
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
