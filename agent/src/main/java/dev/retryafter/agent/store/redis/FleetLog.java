package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.log.AgentLog;
import redis.clients.jedis.exceptions.JedisDataException;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * What the fleet store says in the application's log, never with a stack trace. An outage: one line
 * when it begins, one when it is over (Redis answered steadily for a while), however often the
 * circuit flaps in it; one that never settles is recalled at most once per {@code remindMillis}.
 * A refusal (Redis up, but answering {@code OOM}, {@code WRONGTYPE}, {@code MISCONF}...): one line per
 * kind, again only after {@code remindMillis}.
 */
final class FleetLog {

    /** What a line tells of. */
    enum Kind { UNAVAILABLE, RESTORED, REFUSED }

    /** Where the lines go; the default is the agent's log, at INFO for a Redis back and WARN otherwise. */
    interface Events {
        void line(Kind kind, String line);

        Events LOG = new Events() {
            @Override
            public void line(Kind kind, String line) {
                if (kind == Kind.RESTORED) {
                    AgentLog.logger().info(line);
                } else {
                    AgentLog.logger().warn(line);
                }
            }
        };
    }

    /** Errors that say Redis cannot serve now (busy in a script, loading, a replica cut off): an outage, not a refusal. */
    private static final Set<String> OUTAGES = new HashSet<>(Arrays.asList(
            "BUSY", "LOADING", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "READONLY", "NOREPLICAS"));

    private final String address;
    private final Events events;
    private final long remindNanos;
    private final ConcurrentHashMap<String, Long> refusalSaidAtNanos = new ConcurrentHashMap<>();
    // All guarded by this.
    private long toldNanos;
    private boolean inOutage;
    private long startedNanos;
    private long lastBackNanos;
    private long failedCalls;
    private int interruptions;
    /** Bumped at every opening: a steadiness check made before it is void. */
    private long openings;

    FleetLog(String address, Events events, long remindMillis) {
        this.address = address;
        this.events = events;
        this.remindNanos = TimeUnit.MILLISECONDS.toNanos(remindMillis);
    }

    /** The circuit opened after {@code failures} failed calls: one line unless its outage was told already. */
    void opened(String cause, int failures) {
        String line = null;
        synchronized (this) {
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

    synchronized void probeFailed() {
        failedCalls++;
    }

    /** The circuit closed: returns the token that {@link #steadySince} checks, once Redis has had time to fail again. */
    synchronized long closed() {
        lastBackNanos = System.nanoTime();
        return openings;
    }

    /** The circuit has not opened since {@code token} was given: the outage is over, and one line says so. */
    void steadySince(long token) {
        String line;
        synchronized (this) {
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
}
