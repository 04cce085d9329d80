package dev.retryafter.agent.engine;

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
final class AdaptivePace {

    /**
     * The curve is back at the refused rate after this many requests at that rate, but never sooner
     * than two windows nor later than ten. A hundred requests per cycle keeps the one refusal that
     * ends a cycle near 1%; ten windows bounds how long a ceiling read low (a window another client
     * had half used) holds the pace down.
     */
    static final double REQUESTS_PER_CYCLE = 100;
    static final int MIN_WINDOWS_PER_CYCLE = 2;
    static final int MAX_WINDOWS_PER_CYCLE = 10;

    /**
     * Each cycle ends in about one refusal, so probing pays only if that refusal is cheap: a cycle
     * lasts at least this many times what a refusal has lately cost (the wait until a request got
     * through). A portal whose refusals cost a minute is probed every twenty minutes at most.
     */
    static final int CYCLES_PER_REFUSAL_COST = 20;

    /** Past the plateau the curve is stopped at this many cycles: about six times the refused rate. */
    static final double MAX_PROBE = 3;

    private final double headroom;
    private final long windowMillis;
    private double refusedRate;
    private long epochMillis;
    private long cycleMillis;

    AdaptivePace(Policy policy, long now) {
        this.headroom = policy.headroom();
        this.windowMillis = policy.windowMillis();
        if (policy.startRatePerSecond() > 0) {
            // A configured rate is what the operator believes the limit to be: start on the plateau
            // at that rate, and probe beyond it if the host never objects.
            restart(policy.startRatePerSecond(), now, 0);
            epochMillis = now - cycleMillis;
        }
    }

    /** The curve {@code schedule} describes, under {@code policy}'s headroom and window; none if null. */
    AdaptivePace(Policy policy, PaceSchedule schedule) {
        this.headroom = policy.headroom();
        this.windowMillis = policy.windowMillis();
        if (schedule != null) {
            refusedRate = schedule.refusedRatePerSecond();
            epochMillis = schedule.epochMillis();
            cycleMillis = schedule.cycleMillis();
        }
    }

    /** Where the curve stands, as a value; null while nothing is known. */
    PaceSchedule schedule() {
        return refusedRate > 0 ? new PaceSchedule(refusedRate, epochMillis, cycleMillis) : null;
    }

    /** Requests per second at {@code now} on {@code schedule}; 0 for none, which means "do not pace". */
    static double rate(PaceSchedule schedule, double headroom, long now) {
        return schedule == null ? 0 : schedule.rate(now, headroom);
    }

    /**
     * A refusal at {@code now} after {@code ceiling} successes in the window; a refusal has lately
     * cost {@code refusalCostMillis}. A ceiling of zero says nothing about the rate, so the current
     * pace, if any, is taken as the one refused.
     */
    void onRefusal(int ceiling, long now, long refusalCostMillis) {
        double observed = ceiling > 0 ? ceiling * 1000.0 / windowMillis : rate(now);
        if (observed > 0) {
            restart(observed, now, refusalCostMillis);
        }
    }

    /**
     * Re-times the current curve for a new refusal cost, from where it stands: the rate does not rise,
     * only how soon it returns to the refused rate changes. A curve already probing beyond it resumes
     * from the plateau: a shorter cycle would otherwise make the probe many times steeper at once.
     */
    void retime(long now, long refusalCostMillis) {
        if (refusedRate <= 0) {
            return;
        }
        double progress = Math.min(1.0, (now - epochMillis) / (double) cycleMillis);
        cycleMillis = cycleMillis(refusedRate, refusalCostMillis);
        epochMillis = now - (long) (progress * cycleMillis);
    }

    /** Requests per second at {@code now}; 0 while nothing is known, which means "do not pace". */
    double rate(long now) {
        if (refusedRate <= 0) {
            return 0;
        }
        return PaceSchedule.rateAt(refusedRate, epochMillis, cycleMillis, headroom, now);
    }

    private void restart(double rate, long now, long refusalCostMillis) {
        refusedRate = rate;
        epochMillis = now;
        cycleMillis = cycleMillis(rate, refusalCostMillis);
    }

    private long cycleMillis(double rate, long refusalCostMillis) {
        long forRequests = (long) (REQUESTS_PER_CYCLE * 1000 / rate);
        long usual = Math.max(MIN_WINDOWS_PER_CYCLE * windowMillis, Math.min(MAX_WINDOWS_PER_CYCLE * windowMillis, forRequests));
        return Math.max(usual, CYCLES_PER_REFUSAL_COST * refusalCostMillis);
    }
}
