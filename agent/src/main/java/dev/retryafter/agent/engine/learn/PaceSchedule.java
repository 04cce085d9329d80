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
    /**
     * How long the host's limit takes to have room again, as its first period taught it; 0 when not learned. It
     * goes with the pace so that a later run, or another JVM of the fleet, does not measure a first period again:
     * a run that starts paced is refused late, and would read the time to that refusal as the window.
     */
    private final long windowMillis;

    public PaceSchedule(double refusedRatePerSecond, long epochMillis, long cycleMillis) {
        this(refusedRatePerSecond, epochMillis, cycleMillis, 0);
    }

    /** A curve that stays on the plateau for {@code probeAfterMillis} from its epoch, then probes ({@link AdaptivePace}). */
    public PaceSchedule(double refusedRatePerSecond, long epochMillis, long cycleMillis, long probeAfterMillis) {
        this(refusedRatePerSecond, epochMillis, cycleMillis, probeAfterMillis, 0);
    }

    /** As the other constructors, for a host whose window was learned: {@code windowMillis}, 0 if not. */
    public PaceSchedule(double refusedRatePerSecond, long epochMillis, long cycleMillis, long probeAfterMillis, long windowMillis) {
        if (probeAfterMillis < 0 || windowMillis < 0) {
            throw new IllegalArgumentException("a plateau or a window lasts no negative time");
        }
        if (!(refusedRatePerSecond > 0) || Double.isInfinite(refusedRatePerSecond) || cycleMillis <= 0) {
            throw new IllegalArgumentException("a pace needs a positive refused rate and cycle");
        }
        this.refusedRatePerSecond = refusedRatePerSecond;
        this.epochMillis = epochMillis;
        this.cycleMillis = cycleMillis;
        this.probeAfterMillis = probeAfterMillis;
        this.windowMillis = windowMillis;
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

    /** The host's window as learned; 0 when it was not. */
    public long windowMillis() {
        return windowMillis;
    }

    /** This curve in a host whose window is {@code windowMillis} (0: not learned). */
    public PaceSchedule inWindow(long windowMillis) {
        return windowMillis == this.windowMillis ? this : new PaceSchedule(refusedRatePerSecond, epochMillis, cycleMillis, probeAfterMillis, windowMillis);
    }

    /** The same curve begun again at {@code now}. */
    public PaceSchedule restartedAt(long now) {
        return new PaceSchedule(refusedRatePerSecond, now, cycleMillis, probeAfterMillis, windowMillis);
    }

    /** Requests per second at {@code now}. */
    public double rate(long now, double headroom) {
        return probeAfterMillis > 0 ? plateauThenProbe(refusedRatePerSecond, epochMillis, probeAfterMillis, now)
                : rateAt(refusedRatePerSecond, epochMillis, cycleMillis, headroom, now);
    }

    /** How many slow doublings take the probe to {@link AdaptivePace#MOVED_LIMIT} times the plateau. */
    private static final double MOVED_DOUBLINGS = Math.log(AdaptivePace.MOVED_LIMIT) / Math.log(2);

    /**
     * On the plateau until the probe is due, then doubling every {@link AdaptivePace#PROBE_DOUBLING_MILLIS}; past
     * {@link AdaptivePace#MOVED_LIMIT} times the plateau, every {@link AdaptivePace#MOVED_LIMIT_DOUBLING_MILLIS}.
     */
    static double plateauThenProbe(double refusedRate, long epochMillis, long probeAfterMillis, long now) {
        long probing = now - epochMillis - probeAfterMillis;
        if (probing <= 0) {
            return refusedRate;
        }
        double slow = probing / (double) AdaptivePace.PROBE_DOUBLING_MILLIS;
        if (slow <= MOVED_DOUBLINGS) {
            return refusedRate * Math.pow(2, slow);
        }
        double fast = (probing - MOVED_DOUBLINGS * AdaptivePace.PROBE_DOUBLING_MILLIS) / AdaptivePace.MOVED_LIMIT_DOUBLING_MILLIS;
        return refusedRate * AdaptivePace.MOVED_LIMIT * Math.pow(2, Math.min(fast, 60));
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
                && cycleMillis == other.cycleMillis && probeAfterMillis == other.probeAfterMillis && windowMillis == other.windowMillis;
    }

    @Override
    public int hashCode() {
        return Double.hashCode(refusedRatePerSecond) * 31 * 31 + Long.hashCode(epochMillis) * 31 + Long.hashCode(cycleMillis)
                + Long.hashCode(probeAfterMillis) * 31 * 31 * 31 + Long.hashCode(windowMillis) * 17;
    }

    @Override
    public String toString() {
        return "PaceSchedule[refused " + refusedRatePerSecond + "/s from " + epochMillis + ", cycle " + cycleMillis + "ms"
                + (probeAfterMillis > 0 ? ", probe after " + probeAfterMillis + "ms" : "") + (windowMillis > 0 ? ", window " + windowMillis + "ms]" : "]");
    }
}
