package dev.retryafter.agent.engine.learn;

import dev.retryafter.agent.engine.Policy;

/**
 * The pace one host is sent requests at, in requests per second, learned from its refusals.
 *
 * <p>A refusal names a rate the host would not take: the observed ceiling over the window. The pace
 * falls to {@code headroom} of it (the guide's 80%), then grows back along a cubic curve, as TCP
 * CUBIC and the AWS SDK's adaptive retry mode do: quickly at first, flat near the rate that was
 * refused, then faster and faster beyond it. The flat stretch is where it spends its time, so the
 * pace sits just under the real limit; the probe beyond it is what lets it find a limit that was
 * only a lower bound (a ceiling seen while the application was slow) or that has since risen.
 */
public final class AdaptivePace {

    /**
     * The curve is back at the refused rate after this many requests at that rate for each refusal the
     * last streak cost: a cycle ends in about one streak, so a host whose streaks are one refusal (a
     * short window, a bucket) is probed every hundred requests, and one whose streaks run to five
     * (a long fixed window, refusing until it resets) every five hundred; either way about 1% refused.
     * No window enters it: a host's window is not known, and a configured one may be wrong.
     */
    static final double REQUESTS_PER_CYCLE = 150;
    /** A streak of more refusals than this is counted as this many: a cycle no longer than a thousand requests. */
    static final int MAX_REFUSALS_PER_STREAK = 10;
    /**
     * A first period's reading is probed from within this many periods (and {@link #MIN_FIRST_CYCLE_MILLIS}): a 10 s
     * window read as 100 in 13 s by four workers climbed back to its limit in 40 s, not 60 s (limiter benchmark
     * 0.90 -> 0.93; 20 s / 40 on four 0.948 -> 0.96; two in flight 0.91 -> 0.94; the sweep's 30 s / 15 on one
     * 0.87 -> 0.94, its 5 s / 2 0.95 -> 0.88). A minute's window of 100 (a cycle of 93 s) is not shortened by it.
     */
    static final long PERIODS_PER_FIRST_CYCLE = 3;

    /**
     * However fast the host, no cycle is shorter: each ends in a refusal, and portals that punish
     * refusals (a penalty box after a few a minute) count them per minute, not per request.
     */
    static final long MIN_CYCLE_MILLIS = 60_000;

    /**
     * The first cycle, from a first period's reading (a lower bound: a window half used by others, a
     * recovery the backoff overshot), is shorter, so the reading is corrected soon; still no more
     * than two probe refusals a minute.
     */
    static final long MIN_FIRST_CYCLE_MILLIS = 30_000;

    /** However slow the host, a reading taken low is corrected within a few of these. */
    static final long MAX_CYCLE_MILLIS = 20 * 60_000;

    /**
     * Each cycle ends in about one refusal, so probing pays only if that refusal is cheap: a cycle
     * lasts at least this many times what a refusal has lately cost (the wait until a request got
     * through). A portal whose refusals cost a minute is probed every twenty minutes at most.
     */
    static final int CYCLES_PER_REFUSAL_COST = 20;

    /**
     * Past the plateau the curve keeps rising, so a limit read low (a late start, a limit raised since)
     * is always found again; a cubic's growth from one cycle to the next falls as it goes, never more
     * than 2.5 times. This bound only keeps the arithmetic finite: a million cycles.
     */
    static final double MAX_PROBE = 1e6;

    /**
     * How steeply the probe rises past the plateau, whatever the headroom: 1.4 times the refused rate
     * a cycle past it, 4.2 times two cycles past (the AWS SDK's adaptive mode uses the same 0.4).
     * Tied to the headroom, a headroom of 0.9 probed half as fast as one of 0.8.
     */
    static final double PROBE_SCALE = 0.4;

    /**
     * After a refused probe that confirms the plateau, the pace stays on it this long, then probes. Shorter than a
     * cycle (the plateau has no dip to climb out of), still under two probes a minute for portals that box
     * clients after three refusals a minute. In the limiter benchmark 30 s boxed the 403 cell on 4 workers, 40 s
     * left drift 20 to 8 per 2 s at exactly 0.95; 60 s found drift 8 to 20 later (0.87 against 0.89).
     */
    static final long PLATEAU_MILLIS = 50_000;

    /**
     * Past a confirmed plateau the probe doubles this often: a limit 2.5 times higher (drift 8 to 20 per 2 s) is
     * reached 20 s into the probe. Faster (5 s) refused more on the plateau's own probes: drift 20 to 8 fell under 0.95.
     */
    static final long PROBE_DOUBLING_MILLIS = 15_000;

    /**
     * A probe past a confirmed plateau that reaches this many times it with no refusal has found a limit that moved
     * (a plateau that holds refuses the first window the probe overfills, at about 1.1 times): from there it doubles
     * every {@link #MOVED_LIMIT_DOUBLING_MILLIS}, so a limit 2.5 times higher is reached in 10 s, not 20 s (drift 8 to 20
     * per 2 s 0.89 -> 0.90; no other cell of the limiter benchmark moved, nor the ingestion or fleet benchmarks).
     */
    static final double MOVED_LIMIT = 1.25;

    /** How often a probe past {@link #MOVED_LIMIT} doubles. */
    static final long MOVED_LIMIT_DOUBLING_MILLIS = 5_000;

    /** A refusal within this fraction of the rate refused last refuses the same limit again: the plateau is confirmed. */
    static final double SAME_LIMIT = 0.1;

    private final double headroom;
    private double refusedRate;
    private long epochMillis;
    private long cycleMillis;
    private long probeAfterMillis;
    /** The host's window as learned, carried along unchanged: {@link PaceSchedule#windowMillis()}. */
    private long windowMillis;

    public AdaptivePace(Policy policy, long now) {
        this.headroom = policy.headroom();
        if (policy.startRatePerSecond() > 0) {
            // A configured rate is what the operator believes the limit to be: start on the plateau
            // at that rate, and probe beyond it if the host never objects.
            fromPlateau(policy.startRatePerSecond(), now);
        }
    }

    /** The curve {@code schedule} describes, under {@code policy}'s headroom and window; none if null. */
    public AdaptivePace(Policy policy, PaceSchedule schedule) {
        this.headroom = policy.headroom();
        if (schedule != null) {
            refusedRate = schedule.refusedRatePerSecond();
            epochMillis = schedule.epochMillis();
            cycleMillis = schedule.cycleMillis();
            probeAfterMillis = schedule.probeAfterMillis();
            windowMillis = schedule.windowMillis();
        }
    }

    /** Where the curve stands, as a value; null while nothing is known. */
    public PaceSchedule schedule() {
        return refusedRate > 0 ? new PaceSchedule(refusedRate, epochMillis, cycleMillis, probeAfterMillis, windowMillis) : null;
    }

    /** Requests per second at {@code now} on {@code schedule}; 0 for none, which means "do not pace". */
    public static double rate(PaceSchedule schedule, double headroom, long now) {
        return schedule == null ? 0 : schedule.rate(now, headroom);
    }

    /**
     * The host refused {@code refusedRate} requests a second at {@code now} ({@link RefusedRate});
     * a refusal has lately cost {@code refusalCostMillis}. A rate of zero says nothing, so the
     * current pace, if any, is taken as the one refused.
     */
    public void onRefusal(double refusedRate, long now, long refusalCostMillis, int refusalsPerStreak) {
        double observed = refusedRate > 0 ? refusedRate : rate(now);
        long cycle = observed > 0 ? cycleMillis(observed, refusalCostMillis, refusalsPerStreak) : 0;
        if (cycle == MIN_CYCLE_MILLIS && confirmsPlateau(observed, now)) {
            // Cheap probing: the refusal cost only itself, so the pace goes straight back to the plateau, with no dip
            // below it (the dip is 2.5% of a cycle's requests), and probes again sooner; only on a host whose cycle
            // is the shortest, where a refusal costs about a second: on a long window a probe refused costs a streak
            // until its reset, and probing sooner took fixed 100 / 60 s past 1% refused.
            this.refusedRate = observed;
            epochMillis = now;
            cycleMillis = cycle;
            probeAfterMillis = PLATEAU_MILLIS;
        } else if (observed > 0) {
            restart(observed, now, refusalCostMillis, refusalsPerStreak);
        }
    }

    /**
     * The pace was past the plateau, probing, and the host refused about the rate it refused last: the plateau
     * holds. A refusal on the plateau itself (a reading taken high) or at another rate (the limit moved) is not.
     */
    private boolean confirmsPlateau(double observed, long now) {
        return refusedRate > 0 && rate(now) > refusedRate && Math.abs(observed - refusedRate) <= SAME_LIMIT * refusedRate;
    }

    /** A rate known to be no more than the host allows: on the plateau at it now, the probe next. */
    public void fromPlateau(double rate, long now) {
        fromPlateau(rate, now, Long.MAX_VALUE);
    }

    /**
     * As {@link #fromPlateau(double, long)}, for a reading of one period of {@code periodMillis}: the probe's
     * cycle is at most {@link #PERIODS_PER_FIRST_CYCLE} periods, so a first reading taken low on a short window
     * (a retry that just missed its reset) is corrected within a minute, not after a cycle of requests.
     */
    public void fromPlateau(double rate, long now, long periodMillis) {
        restart(rate, now, 0, 1);
        if (periodMillis < Long.MAX_VALUE / PERIODS_PER_FIRST_CYCLE) {
            cycleMillis = Math.max(MIN_FIRST_CYCLE_MILLIS, Math.min(cycleMillis, PERIODS_PER_FIRST_CYCLE * periodMillis));
        }
        epochMillis = now - cycleMillis;
    }

    /**
     * Re-times the current curve for a new refusal cost, from where it stands: the rate does not rise,
     * only how soon it returns to the refused rate changes. A curve already probing beyond it resumes
     * from the plateau: a shorter cycle would otherwise make the probe many times steeper at once.
     */
    public void retime(long now, long refusalCostMillis) {
        if (refusedRate <= 0) {
            return;
        }
        // A curve on a confirmed plateau resumes from the plateau, on the cubic curve.
        double progress = probeAfterMillis > 0 ? 1.0 : Math.min(1.0, (now - epochMillis) / (double) cycleMillis);
        probeAfterMillis = 0;
        cycleMillis = cycleMillis(refusedRate, refusalCostMillis, 1);
        epochMillis = now - (long) (progress * cycleMillis);
    }

    /** Requests per second at {@code now}; 0 while nothing is known, which means "do not pace". */
    public double rate(long now) {
        if (refusedRate <= 0) {
            return 0;
        }
        return probeAfterMillis > 0 ? PaceSchedule.plateauThenProbe(refusedRate, epochMillis, probeAfterMillis, now)
                : PaceSchedule.rateAt(refusedRate, epochMillis, cycleMillis, headroom, now);
    }

    private void restart(double rate, long now, long refusalCostMillis, int refusalsPerStreak) {
        refusedRate = rate;
        epochMillis = now;
        cycleMillis = cycleMillis(rate, refusalCostMillis, refusalsPerStreak);
        probeAfterMillis = 0;
    }

    private static long cycleMillis(double rate, long refusalCostMillis, int refusalsPerStreak) {
        int refusals = Math.max(1, Math.min(MAX_REFUSALS_PER_STREAK, refusalsPerStreak));
        long forRequests = (long) Math.min(MAX_CYCLE_MILLIS, REQUESTS_PER_CYCLE * refusals * 1000 / rate);
        return Math.max(MIN_CYCLE_MILLIS, Math.max(forRequests, Math.min(MAX_CYCLE_MILLIS, CYCLES_PER_REFUSAL_COST * refusalCostMillis)));
    }
}
