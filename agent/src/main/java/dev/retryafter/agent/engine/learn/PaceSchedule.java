package dev.retryafter.agent.engine.learn;

import dev.retryafter.agent.engine.knowledge.HostKnowledge;

import java.io.Serializable;

/**
 * Where a host's pace curve stands: the rate that was refused, when the curve restarted from it,
 * and how long a cycle back to it lasts. The rate at any moment follows from these and the policy's
 * headroom ({@link AdaptivePace}). An immutable value: part of {@link HostKnowledge}.
 */
public final class PaceSchedule implements Serializable {

    private static final long serialVersionUID = HostKnowledge.VERSION;

    private final double refusedRatePerSecond;
    private final long epochMillis;
    private final long cycleMillis;
    /** After a refused probe confirmed the plateau: how long the curve stays on it before probing again; 0 for the cubic curve. */
    private final long probeAfterMillis;

    public PaceSchedule(double refusedRatePerSecond, long epochMillis, long cycleMillis) {
        this(refusedRatePerSecond, epochMillis, cycleMillis, 0);
    }

    /** A curve that stays on the plateau for {@code probeAfterMillis} from its epoch, then probes ({@link AdaptivePace}). */
    public PaceSchedule(double refusedRatePerSecond, long epochMillis, long cycleMillis, long probeAfterMillis) {
        if (probeAfterMillis < 0) {
            throw new IllegalArgumentException("a plateau lasts no negative time");
        }
        if (!(refusedRatePerSecond > 0) || Double.isInfinite(refusedRatePerSecond) || cycleMillis <= 0) {
            throw new IllegalArgumentException("a pace needs a positive refused rate and cycle");
        }
        this.refusedRatePerSecond = refusedRatePerSecond;
        this.epochMillis = epochMillis;
        this.cycleMillis = cycleMillis;
        this.probeAfterMillis = probeAfterMillis;
    }

    /** The rate the host refused, in requests per second. */
    public double refusedRatePerSecond() {
        return refusedRatePerSecond;
    }

    /** When the curve (re)started from the refused rate. */
    public long epochMillis() {
        return epochMillis;
    }

    /** How long after {@link #epochMillis()} the curve is back at the refused rate. */
    public long cycleMillis() {
        return cycleMillis;
    }

    /** How long the curve stays on the plateau from its epoch before probing; 0 for the cubic curve. */
    public long probeAfterMillis() {
        return probeAfterMillis;
    }

    /** Requests per second at {@code now}. */
    public double rate(long now, double headroom) {
        return probeAfterMillis > 0 ? plateauThenProbe(refusedRatePerSecond, epochMillis, probeAfterMillis, now)
                : rateAt(refusedRatePerSecond, epochMillis, cycleMillis, headroom, now);
    }

    /** On the plateau until the probe is due, then doubling every {@link AdaptivePace#PROBE_DOUBLING_MILLIS}. */
    static double plateauThenProbe(double refusedRate, long epochMillis, long probeAfterMillis, long now) {
        long probing = now - epochMillis - probeAfterMillis;
        return probing <= 0 ? refusedRate : refusedRate * Math.pow(2, Math.min(probing / (double) AdaptivePace.PROBE_DOUBLING_MILLIS, 60));
    }

    /** The cubic curve: one formula for the value and the working copy in {@link AdaptivePace}. */
    static double rateAt(double refusedRate, long epochMillis, long cycleMillis, double headroom, long now) {
        // Before the epoch (a curve restarted for the end of a hold) the curve stays at its floor, never below it.
        double x = Math.max(-1, Math.min((now - epochMillis) / (double) cycleMillis - 1, AdaptivePace.MAX_PROBE));
        if (x < 0) {
            return refusedRate * (1 + (1 - headroom) * x * x * x);
        }
        if (x <= 1) {
            return refusedRate * (1 + AdaptivePace.PROBE_SCALE * x * x * x);
        }
        // A cycle past the plateau with no refusal, the limit is well above the rate refused: double a quarter cycle.
        return refusedRate * (1 + AdaptivePace.PROBE_SCALE) * Math.pow(2, Math.min(4 * (x - 1), 60));
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof PaceSchedule)) {
            return false;
        }
        PaceSchedule other = (PaceSchedule) o;
        return Double.compare(refusedRatePerSecond, other.refusedRatePerSecond) == 0 && epochMillis == other.epochMillis
                && cycleMillis == other.cycleMillis && probeAfterMillis == other.probeAfterMillis;
    }

    @Override
    public int hashCode() {
        return Double.hashCode(refusedRatePerSecond) * 31 * 31 + Long.hashCode(epochMillis) * 31 + Long.hashCode(cycleMillis)
                + Long.hashCode(probeAfterMillis) * 31 * 31 * 31;
    }

    @Override
    public String toString() {
        return "PaceSchedule[refused " + refusedRatePerSecond + "/s from " + epochMillis + ", cycle " + cycleMillis + "ms"
                + (probeAfterMillis > 0 ? ", probe after " + probeAfterMillis + "ms]" : "]");
    }
}
