package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.knowledge.ObservedTurn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What one request's turn waited for, part by part, in the order it waited, each part with its cause
 * as the engine knew it when it asked for the wait: the queue for a permit, a refusal's wait (named by
 * that refusal's reason), the pace, the rate-limit hints. Told to the listener once the turn is over
 * ({@link DecisionListener#onTurnWaited}); in observe mode, what the turn would have waited for
 * ({@link ObservedTurn#wouldWait()}). Built by one thread at a time: the turn's.
 */
public final class WaitedTurn {

    /** Nothing waited: shared, never added to. */
    static final WaitedTurn NONE = new WaitedTurn();

    private final List<Wait> parts = new ArrayList<>(2);

    WaitedTurn() {
    }

    /** {@code millis} more waited for {@code cause}: one part with the part before if that had the same cause. */
    void add(Reason cause, long millis) {
        if (millis <= 0) {
            return;
        }
        int last = parts.size() - 1;
        if (last >= 0 && parts.get(last).reason() == cause) {
            parts.set(last, Wait.of(parts.get(last).millis() + millis, cause));
        } else {
            parts.add(Wait.of(millis, cause));
        }
    }

    /** The parts in the order they were waited; each {@link Wait#reason()} is its cause. */
    public List<Wait> parts() {
        return Collections.unmodifiableList(parts);
    }

    /** All the time waited. */
    public long totalMillis() {
        long total = 0;
        for (Wait part : parts) {
            total += part.millis();
        }
        return total;
    }

    /** The time waited for {@code cause}, over all its parts. */
    public long millis(Reason cause) {
        long total = 0;
        for (Wait part : parts) {
            if (part.reason() == cause) {
                total += part.millis();
            }
        }
        return total;
    }

    /** The time waited for refusals, whatever their reasons. */
    public long refusalMillis() {
        long total = 0;
        for (Wait part : parts) {
            if (part.reason().isRefusalWait()) {
                total += part.millis();
            }
        }
        return total;
    }

    /** The cause that took the most time; null when nothing waited. */
    public Reason mainCause() {
        Reason main = null;
        long most = 0;
        for (Reason cause : Reason.values()) {
            long millis = millis(cause);
            if (millis > most) {
                most = millis;
                main = cause;
            }
        }
        return main;
    }

    public boolean isEmpty() {
        return parts.isEmpty();
    }

    @Override
    public String toString() {
        return parts.toString();
    }
}
