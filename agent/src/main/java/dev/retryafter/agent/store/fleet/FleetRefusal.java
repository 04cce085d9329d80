package dev.retryafter.agent.store.fleet;

import dev.retryafter.agent.engine.knowledge.OpenStreak;

/**
 * The fleet's answer to a refusal at {@code at}: its streak as it stands, the ceiling, whether this refusal opened the streak,
 * and the fleet's verdict against the host's {@code Retry-After}.
 */
public final class FleetRefusal {
    public final long at;
    public final OpenStreak streak;
    /** Every JVM's successes before the refusal, as the fleet counted them. */
    public final int ceiling;
    /** The span the fleet counted the ceiling over: since its previous refusal, if within the window, else the window. */
    public final long spanMillis;
    public final boolean first;
    /** Why the fleet distrusts the host's {@code Retry-After}, this refusal's finding or an earlier one; empty: no verdict. */
    public final String retryAfterDistrusted;

    public FleetRefusal(long at, OpenStreak streak, int ceiling, long spanMillis, boolean first, String retryAfterDistrusted) {
        this.retryAfterDistrusted = retryAfterDistrusted;
        this.at = at;
        this.streak = streak;
        this.ceiling = ceiling;
        this.spanMillis = Math.max(1, spanMillis);
        this.first = first;
    }
}
