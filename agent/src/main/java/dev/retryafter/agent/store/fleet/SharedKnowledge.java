package dev.retryafter.agent.store.fleet;

import dev.retryafter.agent.engine.knowledge.FinishedStreak;
import dev.retryafter.agent.engine.knowledge.HostKnowledge;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where a fleet keeps what it knows of each host, shared by its JVMs: the five operations a
 * {@link FleetKnowledgeStore} needs (reserve, refusal, recovery, merge, read; and the read of many hosts
 * in one trip), each atomic where the knowledge is kept and timed by its clock, each answering within
 * about a timeout or with null ("unavailable"). What an answer tells of the host
 * goes into its {@link FleetHost#saw}; a host whose commands were refused for its data is kept in this
 * JVM a while ({@link FleetHost#keepLocalFor}). {@code K} is how the shared side names a host's keys.
 */
public interface SharedKnowledge<K> extends AutoCloseable {

    /** The shared side's names for {@code host}, made once per host. */
    K keys(String host);

    /** False while the shared side is out of reach: the store carries on with this JVM's knowledge. */
    boolean isAvailable();

    /** Runs when the shared side answers again after an outage, before any other caller reaches it. */
    void onRestored(Runnable listener);

    /** The wait for the fleet's next slot, {@code pending} successes counted in; null when unavailable. */
    Long reserve(FleetHost<K> h, long now, long intervalMillis, long maxWaitMillis, int pending, long windowMillis);

    /** A refusal at {@code now} of a request sent at {@code sentAt}, counted into the fleet's streak, {@code pending} successes with it. */
    FleetRefusal refusal(FleetHost<K> h, long now, long windowMillis, long sentAt, OptionalLong headerMillis, boolean whilePaced,
                         int pending);

    /** The fleet's streak that a success to a request sent at {@code sentAt} ended, if any; null when unavailable. */
    Optional<FinishedStreak> recovery(FleetHost<K> h, long now, long sentAt);

    /** {@code known} merged into the fleet's, as {@link HostKnowledge#mergedWith} merges; false when unavailable. */
    boolean merge(FleetHost<K> h, HostKnowledge known, long now);

    /** Everything the fleet knows of the host, on this JVM's clock, {@code pending} successes counted in; null when unavailable. */
    HostKnowledge read(FleetHost<K> h, int pending);

    /**
     * {@link #read} of each host in {@code due} in one trip, {@code pending[i]} successes of each counted in: each host's
     * answer, null for a host whose read failed; null altogether when unavailable.
     */
    List<HostKnowledge> readAll(List<FleetHost<K>> due, int[] pending);

    @Override
    void close();
}
