package dev.retryafter.it.bench;

import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.testing.VirtualClock;
import dev.retryafter.agent.testing.VirtualScheduler;

import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletionException;

/**
 * One cell of the limiter benchmark: {@code threads} workers share one strategy and take records
 * from one queue against a fresh portal of one {@link LimiterShape}, all as events on one
 * {@link VirtualScheduler}. An attempt reaches the portal one latency after it goes; a refusal is
 * answered at once, a request let through after the portal's service time.
 */
final class LimiterRun {

    /** The figures of one cell. */
    record Result(LimiterShape shape, int threads, String strategy, long seed, int records, int fetched, int lost, int held,
                  boolean stalled, long elapsedMillis, long idealMillis, long requests, long refusals,
                  long requestsAfterFirstPeriod, long refusalsAfterFirstPeriod, long longestStallMillis,
                  long shortestGapAfterRefusalMillis, int boxEntries, int refusalsAnsweredTruthful) {

        boolean isComplete() {
            return !stalled && fetched == records;
        }

        /** The ideal time over the time taken; a run that lost records is measured on what it fetched. */
        double efficiency() {
            return elapsedMillis == 0 ? 0 : Math.min(1.0, (double) idealMillis / elapsedMillis) * fetched / records;
        }

        double refusedAfterFirstPeriod() {
            return requestsAfterFirstPeriod == 0 ? 0 : (double) refusalsAfterFirstPeriod / requestsAfterFirstPeriod;
        }

        /** Records given up: a hold's fail-fast is not one, the worker sends the record again once the hold ends. */
        int lostNotHeld() {
            return lost;
        }

        /** Refusals in each of the limiter's periods (a quota's day), on average. */
        double refusalsPerPeriod() {
            long periods = Math.max(1, (elapsedMillis + shape.firstPeriod() - 1) / shape.firstPeriod());
            return (double) refusals / periods;
        }
    }

    private final LimiterShape shape;
    private final int threads;
    private final int records;
    private final long latency;
    private final long seed;
    private final String strategyName;
    private final VirtualClock clock = new VirtualClock();
    private final VirtualScheduler scheduler = new VirtualScheduler(clock);
    private final long start = clock.millis();
    private final Random headerRandom;
    private final Strategy strategy;
    private final long capMillis;
    private Limiter limiter;

    private int taken;
    private int fetched;
    private int lost;
    private int held;
    private int workersDone;
    private long finishedAt;
    private long firstArrival = -1;
    private long lastAdmission = -1;
    private long requests;
    private long refusals;
    private long requestsAfterFirstPeriod;
    private long refusalsAfterFirstPeriod;
    private long longestStall;
    private long shortestGapAfterRefusal = Long.MAX_VALUE;
    private Throwable failure;

    private LimiterRun(LimiterShape shape, int threads, int records, long latency, long seed, Contender contender) {
        this.shape = shape;
        this.threads = threads;
        this.records = records;
        this.latency = latency;
        this.seed = seed;
        this.strategyName = contender.name();
        this.headerRandom = new Random(seed);
        this.strategy = contender.factory().create(clock, scheduler, seed);
        this.capMillis = 20 * shape.idealMillis(records, threads, latency) + 4 * LimiterShape.HOUR;
    }

    static Result run(LimiterShape shape, int threads, int records, long latency, long seed, Contender contender) {
        return new LimiterRun(shape, threads, records, latency, seed, contender).run();
    }

    private Result run() {
        for (int w = 0; w < threads; w++) {
            long startsAt = start + w; // a millisecond apart, as no real network answers two workers in the same one
            Worker worker = new Worker();
            scheduler.at(startsAt, () -> takeRecord(worker));
        }
        scheduler.run(start + capMillis);
        if (failure != null) {
            throw new IllegalStateException(strategyName + " on " + shape + " failed", failure);
        }
        boolean stalled = workersDone < threads;
        long elapsed = (stalled ? capMillis : finishedAt - start);
        return new Result(shape, threads, strategyName, seed, records, fetched, lost, held, stalled, elapsed,
                shape.idealMillis(records, threads, latency), requests, refusals, requestsAfterFirstPeriod,
                refusalsAfterFirstPeriod, longestStall, shortestGapAfterRefusal, limiter == null ? 0 : limiter.boxEntries(),
                strategy.learned() == null ? 0 : strategy.learned().refusalsAnsweredTruthful());
    }

    /** One worker: when it last had a refusal, for the gap to its next request. */
    private static final class Worker {
        long lastRefusal = -1;
    }

    private void takeRecord(Worker worker) {
        if (taken == records) {
            workersDone++;
            finishedAt = Math.max(finishedAt, clock.millis());
            return;
        }
        taken++;
        attempt(worker, strategy.open());
    }

    private void attempt(Worker worker, Strategy.Fetch fetch) {
        fetch.turn().whenComplete((ignored, refused) -> {
            if (refused != null) {
                onTurnRefused(worker, refused);
                return;
            }
            long now = clock.millis();
            if (worker.lastRefusal >= 0) {
                shortestGapAfterRefusal = Math.min(shortestGapAfterRefusal, now - worker.lastRefusal);
                worker.lastRefusal = -1;
            }
            scheduler.at(now + latency, () -> arrive(worker, fetch));
        });
    }

    private void arrive(Worker worker, Strategy.Fetch fetch) {
        long now = clock.millis();
        if (firstArrival < 0) {
            firstArrival = now;
            limiter = shape.limiter().apply(now);
        }
        boolean admitted = limiter.admit(now);
        count(now, admitted);
        Map<String, String> hints = shape.hints().at(now, shape.burst(), shape.firstPeriod(), limiter.remaining(now),
                limiter.millisUntilRoom(now));
        if (admitted) {
            scheduler.at(now + shape.serviceMillis(), () -> {
                limiter.done(clock.millis());
                answer(worker, fetch, 200, null, hints);
            });
        } else {
            int status = limiter.refusalStatus(now, shape.status());
            answer(worker, fetch, status, status == shape.status() ? shape.header().value(now, limiter.millisUntilRoom(now), headerRandom)
                    : null, hints);
        }
    }

    private void answer(Worker worker, Strategy.Fetch fetch, int status, String retryAfter, Map<String, String> hints) {
        long now = clock.millis();
        Strategy.Next next = fetch.onResponse(status, retryAfter, hints);
        if (status != 200) {
            worker.lastRefusal = now;
        }
        if (next.resend()) {
            scheduler.at(now + next.waitMillis(), () -> attempt(worker, fetch));
            return;
        }
        if (status == 200) {
            fetched++;
        } else {
            lost++;
        }
        scheduler.at(now + next.waitMillis(), () -> takeRecord(worker));
    }

    private void count(long now, boolean admitted) {
        requests++;
        if (!admitted) {
            refusals++;
        }
        if (now - firstArrival >= shape.firstPeriod()) {
            requestsAfterFirstPeriod++;
            if (!admitted) {
                refusalsAfterFirstPeriod++;
            }
        }
        if (admitted) {
            if (lastAdmission >= 0) {
                longestStall = Math.max(longestStall, now - lastAdmission);
            }
            lastAdmission = now;
        }
    }

    /**
     * Only the agent refuses a turn, when it holds the host: the record fails without being sent, and
     * the worker, as a scraper that honours a hold would, puts it back and comes again when the hold ends.
     */
    private void onTurnRefused(Worker worker, Throwable refused) {
        Throwable cause = refused instanceof CompletionException && refused.getCause() != null ? refused.getCause() : refused;
        if (!(cause instanceof HostHeldException)) {
            failure = cause;
            return;
        }
        held++;
        taken--;
        long now = clock.millis();
        long until = ((HostHeldException) cause).untilMillis();
        scheduler.at(Math.max(now + 1, until), () -> takeRecord(worker));
    }
}
