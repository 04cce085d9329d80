package dev.retryafter.agent.engine.learn;

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
 *
 * <p>A host never refused, whose policy sets no cap or rate of its own, starts slowly, as TCP does: one
 * request in flight, twice as many after each {@link #SLOW_START_ADMISSIONS} admissions, up to the
 * policy's cap (eight by default after 60). Every request in flight when a limit is reached is refused
 * together, and a portal that punishes a few refusals a minute (a penalty box) counts them all; nothing
 * before the first refusal tells such a host from one with no limit, so the first refusal comes with few
 * in flight. The first refusal ends the slow start when others were in flight: the cap is lowered below
 * them as ever; a refusal alone says nothing about concurrency, and the slow start goes on.
 */
public final class LearnedCap {

    static final int ADMISSIONS_PER_RISE = 100;
    /** In the slow start, the cap doubles after this many admissions. */
    static final int SLOW_START_ADMISSIONS = 20;
    /**
     * A rise refused again is tried again after twice as many admissions, up to this many: each refusal
     * holds the whole host back for min-sleep, so a cap the host keeps refusing is probed ever more rarely.
     */
    static final int MAX_ADMISSIONS_PER_RISE = 16 * ADMISSIONS_PER_RISE;

    private final AtomicInteger admittedSinceChange = new AtomicInteger();
    private volatile int cap;
    /** Until the host's first refusal, or the policy's cap reached: the cap doubles by admissions. */
    private volatile boolean slowStart;
    /** The last cap a rise reached; 0 none. A refusal that lowers it again makes the next rise wait longer. */
    private volatile int raisedTo;
    private volatile int admissionsPerRise = ADMISSIONS_PER_RISE;

    public LearnedCap(int policyCap) {
        this(policyCap, false);
    }

    /** {@code slowStart}: the host was never refused, so it starts at one in flight. */
    public LearnedCap(int policyCap, boolean slowStart) {
        this.slowStart = slowStart && policyCap > 1;
        this.cap = this.slowStart ? 1 : policyCap;
    }

    public int cap() {
        return cap;
    }

    /**
     * A refusal with {@code inFlight} requests in flight to the host, this one among them: the cap is
     * lowered to one under that, if that is lower. Returns the new cap, or 0 when it did not change.
     */
    public int onRefusal(int inFlight, int policyCap) {
        if (slowStart) {
            if (inFlight <= 1) {
                return 0; // alone: nothing about concurrency, and the slow start goes on
            }
            slowStart = false;
            admittedSinceChange.set(0);
        }
        int lowered = inFlight - 1;
        if (lowered < 1 || lowered >= cap) {
            return 0;
        }
        if (cap == raisedTo) {
            admissionsPerRise = Math.min(MAX_ADMISSIONS_PER_RISE, 2 * admissionsPerRise);
        }
        cap = lowered;
        admittedSinceChange.set(0);
        return lowered;
    }

    /** A request let through: returns the raised cap, or 0 when it stays. */
    public int onAdmitted(int policyCap) {
        if (cap >= policyCap) {
            return 0; // the happy path: nothing learned, nothing to count
        }
        boolean starting = slowStart;
        if (admittedSinceChange.incrementAndGet() < (starting ? SLOW_START_ADMISSIONS : admissionsPerRise)) {
            return 0;
        }
        admittedSinceChange.set(0);
        if (!starting && cap + 1 > raisedTo) {
            admissionsPerRise = ADMISSIONS_PER_RISE; // higher than any rise refused: the host takes more now
        }
        cap = Math.min(policyCap, starting ? 2 * cap : cap + 1);
        raisedTo = starting ? 0 : cap;
        if (cap >= policyCap) {
            slowStart = false;
        }
        return cap;
    }

    /**
     * A reload from {@code before} to {@code after}: a cap nothing lowered follows the policy's; one
     * learned lower stays, under the new one.
     */
    public void usePolicyCap(int before, int after) {
        if (slowStart && cap >= after) {
            slowStart = false;
        }
        cap = cap >= before ? after : Math.min(cap, after);
    }
}
