package dev.retryafter.it.bench;

import dev.retryafter.agent.testing.VirtualClock;
import dev.retryafter.agent.testing.VirtualScheduler;

import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * The AWS SDK for Java v2's adaptive retry mode, as its {@code RateLimitingTokenBucket} does it: a
 * client-side token bucket whose fill rate follows a CUBIC curve, cut to 0.7 of the measured sending
 * rate on each throttling answer and grown back after; enabled at the first throttle. Retries as
 * its standard mode: three attempts, full-jitter backoff from 0.5 s up to 20 s for throttling. It
 * knows nothing of windows; the one change is the same 1 s floor after a refusal as every contender.
 */
final class AwsAdaptiveStrategy implements Strategy {

    static final int MAX_ATTEMPTS = 3;
    private static final double MIN_FILL_RATE = 0.5;
    private static final double MIN_CAPACITY = 1;
    private static final double SMOOTH = 0.8;
    private static final double BETA = 0.7;
    private static final double SCALE_CONSTANT = 0.4;
    private static final long THROTTLE_BASE_MILLIS = 500;
    private static final long MAX_BACKOFF_MILLIS = 20_000;
    private static final long FLOOR_MILLIS = 1_000;

    private final VirtualClock clock;
    private final VirtualScheduler scheduler;
    private final Random random;

    private double fillRate;
    private double maxCapacity;
    private double currentCapacity;
    private double lastTimestamp = -1;
    private boolean enabled;
    private double measuredTxRate;
    private double lastTxRateBucket;
    private long requestCount;
    private double lastMaxRate;
    private double lastThrottleTime;
    private double timeWindow;

    AwsAdaptiveStrategy(VirtualClock clock, VirtualScheduler scheduler, long seed) {
        this.clock = clock;
        this.scheduler = scheduler;
        this.random = new Random(seed);
        this.lastTxRateBucket = Math.floor(seconds());
        this.lastThrottleTime = seconds();
    }

    @Override
    public Fetch open() {
        return new Fetch() {
            private int attempt;

            @Override
            public CompletableFuture<Void> turn() {
                attempt++;
                long wait = acquire();
                return wait == 0 ? CompletableFuture.completedFuture(null) : scheduler.after(wait);
            }

            @Override
            public Next onResponse(int status, String retryAfter) {
                boolean throttled = status == 429 || status == 503;
                update(throttled);
                if (!throttled) {
                    return Next.DONE;
                }
                if (attempt >= MAX_ATTEMPTS) {
                    return Next.DONE;
                }
                long bound = Math.min(MAX_BACKOFF_MILLIS, THROTTLE_BASE_MILLIS << (attempt - 1));
                return Next.resendAfter(Math.max(FLOOR_MILLIS, (long) (random.nextDouble() * bound)));
            }
        };
    }

    private double seconds() {
        return clock.millis() / 1000.0;
    }

    /** Takes a token, returning how long to wait for it first (the SDK sleeps for it, then takes it). */
    private long acquire() {
        if (!enabled) {
            return 0;
        }
        refill();
        currentCapacity -= 1;
        return currentCapacity >= 0 ? 0 : (long) Math.ceil(-currentCapacity / fillRate * 1000);
    }

    private void refill() {
        double now = seconds();
        if (lastTimestamp < 0) {
            lastTimestamp = now;
            return;
        }
        currentCapacity = Math.min(maxCapacity, currentCapacity + (now - lastTimestamp) * fillRate);
        lastTimestamp = now;
    }

    private void update(boolean throttled) {
        updateMeasuredRate();
        double calculated;
        if (throttled) {
            double rateToUse = enabled ? Math.min(measuredTxRate, fillRate) : measuredTxRate;
            lastMaxRate = rateToUse;
            timeWindow = Math.cbrt(lastMaxRate * (1 - BETA) / SCALE_CONSTANT);
            lastThrottleTime = seconds();
            calculated = rateToUse * BETA;
            enabled = true;
        } else {
            timeWindow = Math.cbrt(lastMaxRate * (1 - BETA) / SCALE_CONSTANT);
            calculated = SCALE_CONSTANT * Math.pow(seconds() - lastThrottleTime - timeWindow, 3) + lastMaxRate;
        }
        updateRate(Math.min(calculated, 2 * measuredTxRate));
    }

    private void updateMeasuredRate() {
        double now = seconds();
        double bucket = Math.floor(now * 2) / 2;
        requestCount++;
        if (bucket > lastTxRateBucket) {
            double currentRate = requestCount / (bucket - lastTxRateBucket);
            measuredTxRate = currentRate * SMOOTH + measuredTxRate * (1 - SMOOTH);
            requestCount = 0;
            lastTxRateBucket = bucket;
        }
    }

    private void updateRate(double newRps) {
        refill();
        fillRate = Math.max(newRps, MIN_FILL_RATE);
        maxCapacity = Math.max(newRps, MIN_CAPACITY);
        currentCapacity = Math.min(currentCapacity, maxCapacity);
    }
}
