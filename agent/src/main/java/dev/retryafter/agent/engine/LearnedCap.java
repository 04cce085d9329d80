package dev.retryafter.agent.engine;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many requests in flight a host takes, learned the way Netflix's concurrency-limits AIMD limit
 * learns it: a refusal that came with others in flight lowers the cap below what was in flight; a
 * run of requests let through raises it by one, up to the policy's cap. A portal that caps requests
 * in flight refuses the one over its cap whatever the rate, and read as a rate it looks like "two a
 * minute"; a portal that limits the rate loses nothing, since its refusals are rare once paced and
 * each run of admissions gives the cap back.
 *
 * <p>The rise is slow on purpose (one more after {@link #ADMISSIONS_PER_RISE} admissions at the cap),
 * so that a cap found by a refusal costs under 1% of requests refused while it is probed again. The
 * counting takes no lock; a change of cap is made under the host state's lock.
 */
final class LearnedCap {

    static final int ADMISSIONS_PER_RISE = 100;

    private final AtomicInteger admittedSinceChange = new AtomicInteger();
    private volatile int cap;

    LearnedCap(int policyCap) {
        this.cap = policyCap;
    }

    int cap() {
        return cap;
    }

    /**
     * A refusal with {@code inFlight} requests in flight to the host, this one among them: the cap is
     * lowered to one under that, if that is lower. Returns the new cap, or 0 when it did not change.
     */
    int onRefusal(int inFlight) {
        int lowered = inFlight - 1;
        if (lowered < 1 || lowered >= cap) {
            return 0;
        }
        cap = lowered;
        admittedSinceChange.set(0);
        return lowered;
    }

    /** A request let through: returns the raised cap, or 0 when it stays. */
    int onAdmitted(int policyCap) {
        if (cap >= policyCap) {
            return 0; // the happy path: nothing learned, nothing to count
        }
        if (admittedSinceChange.incrementAndGet() < ADMISSIONS_PER_RISE) {
            return 0;
        }
        admittedSinceChange.set(0);
        cap = Math.min(policyCap, cap + 1);
        return cap;
    }

    /**
     * A reload from {@code before} to {@code after}: a cap nothing lowered follows the policy's; one
     * learned lower stays, under the new one.
     */
    void usePolicyCap(int before, int after) {
        cap = cap >= before ? after : Math.min(cap, after);
    }
}
