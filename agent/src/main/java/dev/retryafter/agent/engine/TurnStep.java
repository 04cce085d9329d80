package dev.retryafter.agent.engine;

/**
 * One step of a turn, the same for the blocking and the asynchronous path: wait this long and ask
 * again, go now, or fail fast because the host is held. Only {@link Call} drives it.
 */
final class TurnStep {

    enum Kind { WAIT, GO, HELD }

    static final TurnStep GO = new TurnStep(Kind.GO, 0, null);

    final Kind kind;
    final long waitMillis;
    final HostHeldException held;

    private TurnStep(Kind kind, long waitMillis, HostHeldException held) {
        this.kind = kind;
        this.waitMillis = waitMillis;
        this.held = held;
    }

    static TurnStep waitFor(long millis) {
        return new TurnStep(Kind.WAIT, millis, null);
    }

    static TurnStep held(HostHeldException held) {
        return new TurnStep(Kind.HELD, 0, held);
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
            return waitFor(hinted);
        }
        long wait = booked ? host.rebookIfRefusedSince(now) : host.reserveSlot(now);
        if (wait > 0) {
            return waitFor(wait);
        }
        long claimed = host.claimHint(now); // two threads must not both take the hints' last place
        return claimed > 0 ? waitFor(claimed) : GO;
    }
}
