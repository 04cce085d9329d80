package dev.retryafter.agent.testing;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.demo.portal.PortalModel;

import java.util.ArrayList;
import java.util.List;

/**
 * One scraper fetching records from a portal model through the engine, in virtual time, the way
 * a blocking adapter drives a call. Records what the application would have seen.
 */
public final class PortalRun {

    /** A loopback round trip is well under this; a county portal's is about this. */
    public static final long DEFAULT_LATENCY_MILLIS = 50;

    public final int fetched;
    public final int refusedToApplication;
    public final int heldToApplication;
    public final long elapsedMillis;
    /** The virtual time each record was fetched at, for "refusals after learning" style assertions. */
    public final List<long[]> timeline;

    private PortalRun(int fetched, int refusedToApplication, int heldToApplication, long elapsedMillis, List<long[]> timeline) {
        this.fetched = fetched;
        this.refusedToApplication = refusedToApplication;
        this.heldToApplication = heldToApplication;
        this.elapsedMillis = elapsedMillis;
        this.timeline = timeline;
    }

    public static PortalRun fetch(RetryEngine engine, VirtualClock clock, PortalModel portal, int records) {
        return fetch(engine, clock, portal, records, DEFAULT_LATENCY_MILLIS);
    }

    public static PortalRun fetch(RetryEngine engine, VirtualClock clock, PortalModel portal, int records, long latencyMillis) {
        long start = clock.millis();
        int fetched = 0;
        int refused = 0;
        int held = 0;
        List<long[]> timeline = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            Call call = engine.open("portal.example", 443, true);
            PortalModel.Reply reply = null;
            try {
                do {
                    call.awaitTurn();
                    clock.advance(latencyMillis);
                    reply = portal.handle(clock.millis(), "scraper");
                    call.onResponse(reply.status, reply.retryAfter);
                    call.endAttempt();
                } while (call.retryRequested());
            } catch (HostHeldException e) {
                held++;
                continue;
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            if (reply.status == 200) {
                fetched++;
            } else {
                refused++;
            }
            timeline.add(new long[] {clock.millis() - start, portal.stats().refusals});
        }
        return new PortalRun(fetched, refused, held, clock.millis() - start, timeline);
    }
}
