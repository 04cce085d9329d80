package dev.retryafter.it.bench;

import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.testing.VirtualClock;
import dev.retryafter.agent.testing.VirtualScheduler;
import dev.retryafter.demo.portal.PortalModel;

import java.util.concurrent.CompletionException;

/**
 * One cell: {@code threads} workers share one strategy and take records from one queue until it is
 * empty, against a fresh portal. Every worker is a chain of events on one {@link VirtualScheduler},
 * so eight "concurrent" workers run deterministically on this thread. A request reaches the portal
 * one latency after it is sent, and its answer is handled at that moment, as in {@code PortalRun}.
 */
final class CellRun {

    private final Settings settings;
    private final Scenario scenario;
    private final int threads;
    private final String strategyName;
    private final VirtualClock clock = new VirtualClock();
    private final VirtualScheduler scheduler = new VirtualScheduler(clock);
    private final long start = clock.millis();
    private final PortalModel portal;
    private final Strategy strategy;

    private int taken;
    private int fetched;
    private int lost;
    private int held;
    private int workersDone;
    private long finishedAt;
    private long firstArrival = -1;
    private long requestsAfterFirstWindow;
    private long refusalsAfterFirstWindow;
    private long longestSleep;
    private Throwable failure;

    private CellRun(Settings settings, Scenario scenario, int threads, Contender contender) {
        this.settings = settings;
        this.scenario = scenario;
        this.threads = threads;
        this.strategyName = contender.name();
        this.portal = scenario.portal(settings.records(), settings.seed());
        this.strategy = contender.factory().create(clock, scheduler, settings.seed());
    }

    static CellResult run(Settings settings, Scenario scenario, int threads, Contender contender) {
        return new CellRun(settings, scenario, threads, contender).run();
    }

    private CellResult run() {
        for (int w = 0; w < threads; w++) {
            // A millisecond apart: with a fixed latency, workers started together would have every answer
            // of the first burst land in the same virtual millisecond, which no real network does.
            long startsAt = start + w;
            String worker = "worker-" + (w + 1);
            scheduler.at(startsAt, () -> takeRecord(worker, startsAt));
        }
        scheduler.run(start + settings.capMillis());
        if (failure != null) {
            throw new IllegalStateException(strategyName + " on " + scenario + " failed", failure);
        }
        boolean stalled = workersDone < threads;
        long elapsed = stalled ? settings.capMillis() : finishedAt - start;
        return new CellResult(scenario, threads, strategyName, settings.records(), fetched, lost, held, stalled, elapsed,
                scenario.idealMillis(settings.records()), portal.stats(), requestsAfterFirstWindow,
                refusalsAfterFirstWindow, longestSleep, strategy.learned());
    }

    /** The worker takes the next record, or stops when none is left. It has been free since {@code freeSince}. */
    private void takeRecord(String worker, long freeSince) {
        if (taken == settings.records()) {
            workersDone++;
            finishedAt = Math.max(finishedAt, clock.millis());
            return;
        }
        taken++;
        attempt(worker, strategy.open(), freeSince);
    }

    /** Waits for the strategy's turn, then sends; the time since {@code freeSince} is one sleep. */
    private void attempt(String worker, Strategy.Fetch fetch, long freeSince) {
        fetch.turn().whenComplete((ignored, refused) -> {
            if (refused != null) {
                onTurnRefused(worker, refused);
                return;
            }
            long now = clock.millis();
            longestSleep = Math.max(longestSleep, now - freeSince);
            scheduler.at(now + settings.latencyMillis(), () -> arrive(worker, fetch));
        });
    }

    private void arrive(String worker, Strategy.Fetch fetch) {
        long now = clock.millis();
        PortalModel.Reply reply = portal.handle(now, worker);
        countAfterFirstWindow(now, reply);
        Strategy.Next next = fetch.onResponse(reply.status, reply.retryAfter);
        if (next.resend()) {
            scheduler.at(now + next.waitMillis(), () -> attempt(worker, fetch, now));
            return;
        }
        if (reply.status == 200) {
            fetched++;
        } else {
            lost++;
        }
        scheduler.at(now + next.waitMillis(), () -> takeRecord(worker, now));
    }

    /** The portal counts its windows from the first request it receives. */
    private void countAfterFirstWindow(long now, PortalModel.Reply reply) {
        if (firstArrival < 0) {
            firstArrival = now;
        }
        if (now - firstArrival >= Scenario.WINDOW_MILLIS) {
            requestsAfterFirstWindow++;
            if (reply.isRefusal()) {
                refusalsAfterFirstWindow++;
            }
        }
    }

    /** Only the agent refuses a turn, when it holds the host: the record fails without being sent. */
    private void onTurnRefused(String worker, Throwable refused) {
        Throwable cause = refused instanceof CompletionException && refused.getCause() != null ? refused.getCause() : refused;
        if (!(cause instanceof HostHeldException)) {
            failure = cause;
            return;
        }
        lost++;
        held++;
        long now = clock.millis();
        // Through the event queue, not a direct call: a held host fails every record at once, 2,000 deep.
        scheduler.at(now, () -> takeRecord(worker, now));
    }
}
