package dev.retryafter.agent.engine.knowledge;

import dev.retryafter.agent.engine.WaitsByCause;

/** What enforce mode would have done to one host's traffic while it was observed. All zero in enforce mode. */
public final class ObservedCounts {

    public static final ObservedCounts NONE = new ObservedCounts(0, 0, 0, 0, 0, 0, 0, 0, WaitsByCause.NONE);

    /** Refusals it would have discarded and sent again. */
    public final long retries;
    /** The waits those retries would have begun with, in total. */
    public final long retryWaitMillis;
    /** Refusals it would have handed back with the attempts used up. */
    public final long gaveUp;
    /** Requests it would have held back before sending (a refusal's wait, or the pace), and for how long in total. */
    public final long delayed;
    public final long delayMillis;
    /** Requests it would have queued because the host's cap was full. */
    public final long queued;
    /** Requests it would have failed fast, the host being held. */
    public final long failedFast;
    /** Holds it would have begun. */
    public final long holds;
    /** {@link #delayMillis} by cause: a refusal's wait (by its reason), the pace. */
    public final WaitsByCause delayByCause;

    public ObservedCounts(long retries, long retryWaitMillis, long gaveUp, long delayed, long delayMillis, long queued,
                   long failedFast, long holds, WaitsByCause delayByCause) {
        this.retries = retries;
        this.retryWaitMillis = retryWaitMillis;
        this.gaveUp = gaveUp;
        this.delayed = delayed;
        this.delayMillis = delayMillis;
        this.queued = queued;
        this.failedFast = failedFast;
        this.holds = holds;
        this.delayByCause = delayByCause;
    }

    /** Whether anything was observed that enforce mode would have acted on. */
    public boolean any() {
        return retries + gaveUp + delayed + queued + failedFast + holds > 0;
    }
}
