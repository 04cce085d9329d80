package dev.retryafter.agent.store.redis;

import redis.clients.jedis.exceptions.JedisDataException;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Redis answering one of the store's commands with an error about its data, not about itself: out
 * of memory ({@code OOM}), a key of another type ({@code WRONGTYPE}), a failed save that stops
 * writes ({@code MISCONF}), a script tripping over another writer's garbage. Redis is up, so this is
 * no outage and no failure of the agent: each kind of error is said in one WARN line naming it, with
 * what the store does about it, and again only after {@link #QUIET_MILLIS}; never a stack trace.
 */
final class CommandRefusals {

    /** A refusal that goes on is said again after this long, not at every command. */
    static final long QUIET_MILLIS = TimeUnit.MINUTES.toMillis(10);

    /** Errors that say Redis cannot serve now (busy in a script, loading, a replica cut off): an outage, not a refusal. */
    private static final Set<String> OUTAGES = new HashSet<>(Arrays.asList(
            "BUSY", "LOADING", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "READONLY", "NOREPLICAS"));
    private static final int LONGEST = 200;

    private final String address;
    private final RedisLink.Events events;
    private final ConcurrentHashMap<String, Long> saidAtNanos = new ConcurrentHashMap<>();

    CommandRefusals(String address, RedisLink.Events events) {
        this.address = address;
        this.events = events;
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
    static String text(JedisDataException e) {
        String message = e.getMessage() == null ? "" : e.getMessage().trim();
        int script = message.indexOf(" script: ");
        if (script >= 0) {
            message = message.substring(0, script);
        }
        int newline = message.indexOf('\n');
        if (newline >= 0) {
            message = message.substring(0, newline);
        }
        return message.length() > LONGEST ? message.substring(0, LONGEST) + "..." : message;
    }

    /** One line for {@code error}'s kind, unless one was said in the last {@link #QUIET_MILLIS}. */
    void say(JedisDataException error, String consequence) {
        String code = code(error);
        long now = System.nanoTime();
        Long said = saidAtNanos.get(code);
        if (said != null && now - said < TimeUnit.MILLISECONDS.toNanos(QUIET_MILLIS)) {
            return;
        }
        boolean first = said == null ? saidAtNanos.putIfAbsent(code, now) == null : saidAtNanos.replace(code, said, now);
        if (first) {
            events.refused("fleet store " + address + " refused a command: " + text(error) + "; " + consequence);
        }
    }
}
