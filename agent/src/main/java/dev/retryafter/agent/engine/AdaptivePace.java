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

    /** Past the plateau the curve is stopped at this many cycles: about six times the refused rate. */
    private static final double MAX_PROBE = 3;

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
            restart(policy.startRatePerSecond(), now);
            epochMillis = now - cycleMillis;
        }
    }

    /**
     * A refusal at {@code now} after {@code ceiling} successes in the window. A ceiling of zero says
     * nothing about the rate, so the current pace, if any, is taken as the one refused.
     */
    void onRefusal(int ceiling, long now) {
        double observed = ceiling > 0 ? ceiling * 1000.0 / windowMillis : rate(now);
        if (observed > 0) {
            restart(observed, now);
        }
    }

    /** Requests per second at {@code now}; 0 while nothing is known, which means "do not pace". */
    double rate(long now) {
        if (refusedRate <= 0) {
            return 0;
        }
        double x = Math.min((now - epochMillis) / (double) cycleMillis - 1, MAX_PROBE);
        return refusedRate * (1 + (1 - headroom) * x * x * x);
    }

    /** The rate last refused: the learned limit the curve returns to. */
    double refusedRate() {
        return refusedRate;
    }

    private void restart(double rate, long now) {
        refusedRate = rate;
        epochMillis = now;
        long forRequests = (long) (REQUESTS_PER_CYCLE * 1000 / rate);
        cycleMillis = Math.max(MIN_WINDOWS_PER_CYCLE * windowMillis, Math.min(MAX_WINDOWS_PER_CYCLE * windowMillis, forRequests));
    }
}
