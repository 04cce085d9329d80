package dev.retryafter.agent.store.redis;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What the fleet store says of an outage of its Redis: one line when it begins, and one when it
 * is over, with its length and the calls that failed. It is over once Redis has answered steadily
 * for a while: a Redis that flaps (slow, restarting, a link that drops) is one outage, however many
 * times the circuit opens and closes in it, so the application's log gets two lines, not two a flap.
 */
final class OutageLines {

    private final String address;
    private final RedisLink.Events events;
    // All guarded by this.
    private boolean inOutage;
    private long startedNanos;
    private long lastBackNanos;
    private long failedCalls;
    private int interruptions;
    /** Bumped at every opening: a steadiness check made before it is void. */
    private long openings;

    OutageLines(String address, RedisLink.Events events) {
        this.address = address;
        this.events = events;
    }

    /** The circuit opened after {@code failures} failed calls: one line unless its outage was told already. */
    void opened(String cause, int failures) {
        boolean begins;
        synchronized (this) {
            openings++;
            begins = !inOutage;
            if (begins) {
                inOutage = true;
                startedNanos = System.nanoTime();
                failedCalls = 0;
                interruptions = 0;
            }
            failedCalls += Math.max(1, failures);
            interruptions++;
        }
        if (begins) {
            events.unavailable("fleet store " + address + " unavailable (" + cause
                    + "); carrying on with this JVM's own knowledge, reconnecting in the background");
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
