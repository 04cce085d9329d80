package dev.retryafter.agent.engine;

/**
 * One step of a turn, the same for the blocking and the asynchronous path: wait this long and ask
 * again, go now, or fail fast because the host is held. A wait says why: up to {@code firstMillis}
 * for {@code firstCause} (a refusal's moment still ahead), the rest for {@code cause}. Only
 * {@link Call} drives it.
 */
final class TurnStep {

    enum Kind { WAIT, GO, HELD }

    static final TurnStep GO = new TurnStep(Kind.GO, 0, null, 0, null, null);

    final Kind kind;
    final long waitMillis;
    final HostHeldException held;
    /** The first part of the wait and its cause; 0 and null when the whole wait has one cause. */
    final long firstMillis;
    final Reason firstCause;
    /** The cause of the wait, after any first part. */
    final Reason cause;

    private TurnStep(Kind kind, long waitMillis, HostHeldException held, long firstMillis, Reason firstCause, Reason cause) {
        this.kind = kind;
        this.waitMillis = waitMillis;
        this.held = held;
        this.firstMillis = firstMillis;
        this.firstCause = firstCause;
        this.cause = cause;
    }

    static TurnStep waitFor(long millis, Reason cause) {
        return new TurnStep(Kind.WAIT, millis, null, 0, null, cause);
    }

    /** A wait of {@code millis}: its first {@code firstMillis} for {@code firstCause}, the rest for {@code cause}. */
    static TurnStep waitFor(long millis, long firstMillis, Reason firstCause, Reason cause) {
        return firstMillis <= 0 ? waitFor(millis, cause)
                : firstMillis >= millis ? waitFor(millis, firstCause)
                : new TurnStep(Kind.WAIT, millis, null, firstMillis, firstCause, cause);
    }

    static TurnStep held(HostHeldException held) {
        return new TurnStep(Kind.HELD, 0, held, 0, null, null);
    }

    /**
     * {@code actualMillis} waited for this step, put down to its causes in {@code turn}: the first part
     * as far as it went, the rest (a sleep's overrun included) to the step's cause.
     */
    void account(long actualMillis, WaitedTurn turn) {
        long first = Math.min(actualMillis, firstMillis);
        turn.add(firstCause, first);
        turn.add(cause, actualMillis - first);
    }

    /**
     * The next step for a caller holding a permit of {@code host}: first any wait the host's believed
     * rate-limit hints impose (their allowance used up); then the first books a slot in the pace
     * behind any wait a refusal imposed; after a wait, the booking stands unless a refusal came in
     * meanwhile. A hold that began meanwhile is not waited out.
     */
    static TurnStep next(HostState host, boolean booked, long now) {
        HostHeldException held = host.heldException(now);
        if (held != null) {
            return held(held);
        }
        long hinted = host.hintWait(now);
        if (hinted < 0) {
            return held(host.heldException(now)); // a quota: the host is held now
        }
        if (hinted > 0) {
            return waitFor(hinted, Reason.RATE_LIMIT_HINTS);
        }
        TurnStep slot = host.bookSlot(booked, now);
        if (slot != null) {
            return slot;
        }
        long claimed = host.claimHint(now); // two threads must not both take the hints' last place
        return claimed > 0 ? waitFor(claimed, Reason.RATE_LIMIT_HINTS) : GO;
    }
}
