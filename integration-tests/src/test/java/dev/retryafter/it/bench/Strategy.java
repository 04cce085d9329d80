package dev.retryafter.it.bench;

import dev.retryafter.agent.testing.VirtualClock;
import dev.retryafter.agent.testing.VirtualScheduler;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One way a client answers refusals. A fresh instance serves one cell, shared by all its workers as
 * a client's per-host state would be, so nothing learned about one portal carries to the next.
 * Driven from the benchmark's one thread, in virtual time.
 */
interface Strategy {

    /** One record, through all its attempts. */
    Fetch open();

    /** What the strategy has learned about the portal, for the table; null if it learns nothing. */
    default Learned learned() {
        return null;
    }

    /** Makes the strategy for one cell. */
    @FunctionalInterface
    interface Factory {
        Strategy create(VirtualClock clock, VirtualScheduler scheduler, long seed);
    }

    /** One record's attempts, as a worker drives them. */
    interface Fetch {

        /** Completes when the next attempt may go out: at once, or after the strategy's own pacing. */
        CompletableFuture<Void> turn();

        /** The portal's answer to the attempt just sent, at the virtual time now: what the worker does next. */
        Next onResponse(int status, String retryAfter);

        /** The same, with the response's other headers (rate-limit hints): only a strategy that reads them overrides this. */
        default Next onResponse(int status, String retryAfter, Map<String, String> headers) {
            return onResponse(status, retryAfter);
        }
    }

    /** After an answer the worker waits, then sends the record again or moves on to the next one. */
    record Next(boolean resend, long waitMillis) {

        static final Next DONE = new Next(false, 0);

        static Next resendAfter(long millis) {
            return new Next(true, millis);
        }

        static Next giveUpAfter(long millis) {
            return new Next(false, millis);
        }
    }

    /**
     * The category a learner put the portal in, the ceiling it saw (-1: none), the pace it ended at
     * (0: unpaced), the longest wait it decided on after a refusal, before any pacing, and how many refusals it
     * answered while it held the portal's header truthful.
     */
    record Learned(String category, int ceiling, double pacePerMinute, long longestDecidedWaitMillis, int refusalsAnsweredTruthful) {

        Learned(String category, int ceiling, double pacePerMinute, long longestDecidedWaitMillis) {
            this(category, ceiling, pacePerMinute, longestDecidedWaitMillis, 0);
        }
    }
}
