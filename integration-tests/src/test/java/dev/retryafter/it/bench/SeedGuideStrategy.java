package dev.retryafter.it.bench;

import dev.retryafter.agent.engine.header.RetryAfter;
import dev.retryafter.agent.engine.header.RetryAfterParser;
import dev.retryafter.agent.testing.VirtualClock;
import dev.retryafter.agent.testing.VirtualScheduler;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The seed guide's algorithm as written, ported line for line: {@code parse_retry_after},
 * {@code sanitise}, {@code characterise}, {@code LearnedLimit} and {@code fetch_with_limit}. Where the
 * guide's sketch is incomplete, the smallest change that lets it run, each marked below. Its quirks
 * are kept on purpose: they are what the benchmark measures.
 */
final class SeedGuideStrategy implements Strategy {

    static final double MIN_SLEEP = 1.0;
    static final double MAX_SLEEP = 300.0;
    static final int ATTEMPTS = 5;
    static final long WINDOW_MILLIS = 60_000;
    static final int HISTORY = 200;
    static final double HEADROOM = 0.8;

    private static final CompletableFuture<Void> NOW = CompletableFuture.completedFuture(null);

    private final VirtualClock clock;
    private final VirtualScheduler scheduler;
    private final Random random;
    private final GuideLearnedLimit limit = new GuideLearnedLimit();
    /** Every 429 whose recovery was measured: the guide keeps them all, never a rolling window. */
    private final List<Observation> observations = new ArrayList<>();
    /** 429s still waiting for the next 2xx to measure their recovery. */
    private final List<Refusal> unrecovered = new ArrayList<>();
    private String category = "no 429s observed";
    private int learnedCeiling = -1;
    private long longestSleepMillis;
    private double pacePerSecond;
    private long nextSlotMillis = Long.MIN_VALUE;

    SeedGuideStrategy(VirtualClock clock, VirtualScheduler scheduler, long seed) {
        this.clock = clock;
        this.scheduler = scheduler;
        this.random = new Random(seed);
    }

    @Override
    public Fetch open() {
        return new Fetch() {
            private int attempt;

            @Override
            public CompletableFuture<Void> turn() {
                attempt++;
                return paced();
            }

            @Override
            public Next onResponse(int status, String retryAfter) {
                return SeedGuideStrategy.this.onResponse(attempt, status, retryAfter);
            }
        };
    }

    @Override
    public Learned learned() {
        return new Learned(category, learnedCeiling, pacePerSecond * 60, longestSleepMillis);
    }

    /** One pass of {@code fetch_with_limit}'s loop body, after {@code session.get}. */
    private Next onResponse(int attempt, int status, String retryAfter) {
        long now = clock.millis();
        limit.record(now, status < 400);
        if (status < 300) {
            measureRecovery(now);
        } else {
            learnPace(now);
        }
        // The guide's loop returns anything but a 429 to the caller: a 503 is lost at once.
        if (status != 429) {
            return Next.DONE;
        }
        double backoff = random.nextDouble() * Math.min(60.0, 0.5 * Math.pow(2, attempt - 1)); // full jitter
        Double seconds = parseRetryAfter(retryAfter, now);
        double sleepFor = sanitise(seconds, backoff, category);
        unrecovered.add(new Refusal(seconds, now));
        long sleepMillis = (long) (sleepFor * 1000);
        longestSleepMillis = Math.max(longestSleepMillis, sleepMillis);
        // The loop sleeps after every 429, the last one too, and only then raises RateLimited.
        return attempt < ATTEMPTS ? Next.resendAfter(sleepMillis) : Next.giveUpAfter(sleepMillis);
    }

    /** {@code parse_retry_after}: seconds, or null when absent or unparseable; a past date is 0. */
    private static Double parseRetryAfter(String raw, long now) {
        RetryAfter header = RetryAfterParser.parse(raw, now);
        return header.isUsable() ? header.millis() / 1000.0 : null;
    }

    /** {@code sanitise}, branch for branch; note that two branches return the backoff under MIN_SLEEP. */
    static double sanitise(Double seconds, double backoff, String category) {
        if (category.equals("truthful") && seconds != null) {
            return Math.max(MIN_SLEEP, Math.min(seconds, MAX_SLEEP));
        }
        if (category.equals("always_zero")) {
            return backoff;
        }
        if (category.equals("constant_overstated") && seconds != null) {
            return Math.max(MIN_SLEEP, Math.min(backoff * 2, MAX_SLEEP));
        }
        if (seconds == null) {
            return backoff;
        }
        return Math.max(MIN_SLEEP, Math.min(Math.max(seconds, backoff), MAX_SLEEP));
    }

    /**
     * The guide's loop records each 429 with {@code actual_recovery_seconds=None}, so its
     * {@code characterise} could never run. Here every 429 gets what the field's comment asks for,
     * "429 until the next 2xx", measured when that 2xx arrives, and the host is re-characterised.
     */
    private void measureRecovery(long now) {
        if (unrecovered.isEmpty()) {
            return;
        }
        for (Refusal refusal : unrecovered) {
            observations.add(new Observation(refusal.parsedSeconds, (now - refusal.atMillis) / 1000.0));
        }
        unrecovered.clear();
        category = characterise(observations);
    }

    /** {@code characterise}: which kind of liar is this host? */
    static String characterise(List<Observation> observations) {
        if (observations.isEmpty()) {
            return "no 429s observed";
        }
        List<Observation> withHeader = observations.stream().filter(o -> o.parsedSeconds != null).toList();
        if (withHeader.isEmpty()) {
            return "absent";
        }
        double[] ratios = withHeader.stream()
                .mapToDouble(o -> o.actualRecoverySeconds / Math.max(o.parsedSeconds, 0.001)).toArray();
        Arrays.sort(ratios);
        double median = ratios[ratios.length / 2];
        Set<Double> distinct = new HashSet<>();
        withHeader.forEach(o -> distinct.add(o.parsedSeconds));
        if (distinct.stream().allMatch(v -> v == 0)) {
            return "always_zero";
        }
        if (distinct.size() == 1 && median < 0.1) {
            return "constant_overstated";
        }
        if (median >= 0.5 && median <= 2.0) {
            return "truthful";
        }
        return "unreliable";
    }

    /**
     * The guide defines {@code suggested_rate} but its loop never calls it. As the brief asks: once a
     * rejection teaches a rate, requests go out at it, 0.8 of the observed ceiling per window, never
     * probing higher. A ceiling of 0 would mean "send nothing ever"; it is taken as nothing learned.
     */
    private void learnPace(long now) {
        int ceiling = limit.observedCeiling(now);
        if (ceiling > 0) {
            learnedCeiling = ceiling;
            pacePerSecond = HEADROOM * ceiling * 1000.0 / WINDOW_MILLIS; // suggested_rate
        }
    }

    /** Every attempt from every worker takes the next slot at the learned pace. */
    private CompletableFuture<Void> paced() {
        if (pacePerSecond <= 0) {
            return NOW;
        }
        long now = clock.millis();
        long slot = Math.max(now, nextSlotMillis);
        nextSlotMillis = slot + (long) Math.ceil(1000 / pacePerSecond);
        return slot == now ? NOW : scheduler.after(slot - now);
    }

    /** {@code RetryAfterObservation}, the fields characterise reads. */
    record Observation(Double parsedSeconds, double actualRecoverySeconds) {
    }

    private record Refusal(Double parsedSeconds, long atMillis) {
    }

    /** The guide's {@code LearnedLimit}: two bounded deques of timestamps. */
    private static final class GuideLearnedLimit {
        private final ArrayDeque<Long> successes = new ArrayDeque<>();
        private final ArrayDeque<Long> rejections = new ArrayDeque<>();

        void record(long ts, boolean ok) {
            ArrayDeque<Long> deque = ok ? successes : rejections;
            if (deque.size() == HISTORY) {
                deque.removeFirst(); // deque(maxlen=200)
            }
            deque.addLast(ts);
        }

        /** {@code observed_ceiling}: successes in the window before its first 429; -1 for None. */
        int observedCeiling(long now) {
            if (rejections.isEmpty()) {
                return -1;
            }
            long cutoff = now - WINDOW_MILLIS;
            long first429 = rejections.stream().filter(t -> t >= cutoff).mapToLong(Long::longValue).min().orElse(-1);
            if (first429 < 0) {
                return -1;
            }
            return (int) successes.stream().filter(t -> t >= cutoff && t < first429).count();
        }
    }
}
