package dev.retryafter.agent.engine.knowledge;

import dev.retryafter.agent.engine.learn.HintBudget;
import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.learn.LearnedLimit;
import dev.retryafter.agent.engine.learn.PaceSchedule;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Where what the agent knows of each portal lives ({@link HostKnowledge}), as operations rather than
 * objects, so that several threads, or several JVMs sharing one store, can run them at once. Each
 * operation is atomic for its host and merge-safe: a moment only moves later, a pace is replaced only
 * by one learned later, finished streaks are a bounded append. A store keeps no clock: every moment
 * comes in as an argument, epoch milliseconds. Hosts are named by "host:port".
 *
 * <p>Per-JVM mechanics (permits, calls in flight, counters) are never in a store: see {@link HostState}.
 * Every implementation must pass the contract suite ({@code KnowledgeStoreContract} in the tests).
 */
public interface KnowledgeStore {

    /** What is known of {@code host}; {@link HostKnowledge#NONE} for a host never written. */
    HostKnowledge read(String host);

    /**
     * As {@link #read}, from the store itself where {@link #read} answers from a copy (a fleet's store
     * answers from this JVM's mirror of it): one round trip, for what is asked once per host.
     */
    default HostKnowledge readThrough(String host) {
        return read(host);
    }

    /**
     * Books the next moment to send to {@code host}: no sooner than {@code now}, the end of the last
     * booking or the not-before moment, and no later than {@code now + maxWaitMillis}; the booking
     * after it starts {@code intervalMillis} after it. Returns how long to wait for it (0: go now).
     */
    long reserveSlot(String host, long now, long intervalMillis, long maxWaitMillis);

    /** No request to {@code host} before {@code moment}: the later of this and any earlier one stands. */
    void imposeNotBefore(String host, long moment);

    /** Holds {@code host} until {@code moment}, which also bars every request until then; the later hold stands. */
    void holdUntil(String host, long moment, String reason);

    /**
     * A refusal at {@code now} of a request sent at {@code sentAt}: opens a streak if none is open
     * (with this header and pacing), else counts it into the open one, and distrusts the host's
     * {@code Retry-After} for good if this header names another moment than the streak's first did
     * ({@link HostKnowledge#retryAfterDistrusted()}; the first verdict stands). Returns the streak as it stands.
     */
    OpenStreak recordRefusal(String host, long now, long sentAt, OptionalLong headerMillis, boolean whilePaced);

    /**
     * A response let through at {@code now}: one success toward the host's ceiling. A store that JVMs
     * share counts every JVM's, so the ceiling read at a refusal is what the portal let the whole
     * fleet have, not this JVM's share of it. Costs no round trip: a shared store may count in batches.
     */
    void recordAdmitted(String host, long now);

    /**
     * The ceiling the refusal at {@code refusalAt}, just recorded by {@link #recordRefusal}, reveals:
     * the successes counted by {@link #recordAdmitted} (every JVM's, in a shared store) in the
     * {@code windowMillis} before it, counted from the previous refusal if that lies in the window
     * ({@link LearnedLimit#ceilingBefore(long)}'s rule).
     */
    int ceilingBefore(String host, long refusalAt, long windowMillis);

    /**
     * How long a span the count {@link #ceilingBefore} gave for {@code refusalAt} covers, when asked for
     * {@code windowMillis}: that, unless the store counts over a window of its own (a fleet's store counts
     * every JVM's successes in the policy's window, in its own script), so that a rate is read over the
     * span the count was taken over.
     */
    default long ceilingSpanMillis(String host, long refusalAt, long windowMillis) {
        return windowMillis;
    }

    /**
     * The earliest success counted by {@link #recordAdmitted} at or after {@code from}, and before
     * {@code before}: where a host's first period began for a fleet, whose first requests may have
     * gone before this JVM's. Empty when none is counted, or the store cannot tell (a JVM then takes
     * its own first request).
     */
    default OptionalLong firstAdmitted(String host, long from, long before) {
        return OptionalLong.empty();
    }

    /**
     * A response let through, to a request sent at {@code sentAt}: if it went out after the open
     * streak began, the streak is over and joins the finished ones (the oldest drops out past
     * {@link HostKnowledge#MAX_STREAKS}). Returns the knowledge before and after; empty if no streak ended.
     */
    Optional<StreakEnd> recordRecovery(String host, long sentAt);

    /**
     * What a refusal taught at {@code learnedAt}: a pace (none: the current one stands) and a ceiling
     * (none: the current one stands). Kept unless something learned later is known.
     */
    void learn(String host, long learnedAt, Optional<PaceSchedule> pace, OptionalInt ceiling);

    /**
     * The host's rate-limit hints contradicted themselves ({@link HintBudget}): they are not believed again,
     * in this run or the next. The first verdict's reason stands.
     */
    void distrustHints(String host, String why);

    /** Refusal costs of streaks begun before {@code moment} no longer count: the category changed then. */
    void forgetCostsBefore(String host, long moment);

    /** Merges {@code known} into what the store has: as if every operation that made it were run again. */
    void merge(String host, HostKnowledge known);

    /** Every host the store knows, and what it knows: for a state file or a report. */
    Map<String, HostKnowledge> snapshot();

    /**
     * This JVM no longer tracks {@code host} and owes it nothing. A store in memory drops it to stay
     * bounded; a shared or persistent one may keep it.
     */
    void forget(String host);

    /**
     * An operator lifts the hold on {@code host}, and any wait it imposed, at {@code now}; what was
     * learned stays. False when the host was not held, or this store cannot lift one (a fleet's hold
     * is the fleet's: each JVM would read it back).
     */
    default boolean releaseHold(String host, long now) {
        return false;
    }

    /** A streak that ended, with the knowledge before and after. */
    final class StreakEnd {
        private final FinishedStreak streak;
        private final HostKnowledge before;
        private final HostKnowledge after;

        public StreakEnd(FinishedStreak streak, HostKnowledge before, HostKnowledge after) {
            this.streak = streak;
            this.before = before;
            this.after = after;
        }

        public FinishedStreak streak() {
            return streak;
        }

        public HostKnowledge before() {
            return before;
        }

        public HostKnowledge after() {
            return after;
        }
    }
}
