package dev.retryafter.agent.store.redis;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What the fleet store says of an outage of its Redis: one line when it begins, and one when it
 * is over, with its length and the calls that failed. It is over once Redis has answered steadily
 * for a while: a Redis that flaps (slow, restarting, a link that drops) is one outage, however many
 * times the circuit opens and closes in it, so the application's log gets two lines, not two a flap.
 * An outage that never settles is recalled, with its count so far, at most once per {@code remindMillis}.
 */
final class OutageLines {

    private final String address;
    private final RedisLink.Events events;
    private final long remindNanos;
    // All guarded by this.
    private long toldNanos;
    private boolean inOutage;
    private long startedNanos;
    private long lastBackNanos;
    private long failedCalls;
    private int interruptions;
    /** Bumped at every opening: a steadiness check made before it is void. */
    private long openings;

    OutageLines(String address, RedisLink.Events events, long remindMillis) {
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
            events.unavailable(line);
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
        events.restored(line);
    }
}
