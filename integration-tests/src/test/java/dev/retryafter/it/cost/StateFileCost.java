package dev.retryafter.it.cost;

import dev.retryafter.agent.store.file.FileKnowledgeStore;
import dev.retryafter.agent.engine.learn.PaceSchedule;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What the state file costs: a {@link FileKnowledgeStore} holding {@code hosts} hosts' knowledge,
 * saved to a file on the local disk and read back as the agent does at start. Runs in this JVM,
 * on the system clock for the timing; the knowledge's own moments are fixed, so every save writes
 * the same bytes.
 *
 * <p>Each host was refused at least once, so it has a pace, a ceiling, a booked slot and a wait,
 * and one to {@value #MOST_STREAKS} finished streaks; one host in {@value #HELD_EVERY} is held, its
 * last streak still open. That is the most a host keeps apart from the length of its name.
 *
 * <p>Arguments of {@link #main}: hosts (default 10,000), measured runs (default 5).
 */
final class StateFileCost {

    /** The agent's default {@code state-max-age}: nothing here is that old, so every host is written and read. */
    private static final long MAX_AGE_MILLIS = 7 * 24 * 3_600_000L;
    static final int HELD_EVERY = 10;
    /** The engine keeps the last five finished streaks a host. */
    static final int MOST_STREAKS = 5;
    /** Unmeasured runs first: the JIT has compiled the writer and the reader by the first measured one. */
    static final int WARM_UPS = 2;
    private static final long WINDOW_MILLIS = 60_000;
    private static final long HOLD_MILLIS = 3_600_000;

    private StateFileCost() {
    }

    /** One step's times, one per measured run: on the system clock, and this thread's processor time, which a busy machine disturbs less. */
    record Step(List<Double> millis, List<Double> cpuMillis) {

        Step() {
            this(new ArrayList<>(), new ArrayList<>());
        }
    }

    /**
     * {@code saveFresh}: a save with no file there yet, a scraper's first; {@code save}: a save over
     * the last one's file, which is read and merged first, as every save after the first is (at
     * exit and each {@code state-interval}); {@code read}: opening the store from the file, as at start.
     */
    record Result(int hosts, int held, long bytes, int hostsReadBack, String fileSystem, Step saveFresh, Step save, Step read) {

        double bytesPerHost() {
            return bytes / (double) hosts;
        }

        String summary() {
            return String.format(Locale.ROOT, "state file: %,d hosts (%,d held), %,d bytes (%,.0f a host) on %s; "
                            + "save %.1f ms (CPU %.1f), with no file yet %.1f ms (CPU %.1f), read at start %.1f ms (CPU %.1f); "
                            + "medians of %d", hosts, held, bytes, bytesPerHost(), fileSystem,
                    Stats.median(save.millis()), Stats.median(save.cpuMillis()), Stats.median(saveFresh.millis()),
                    Stats.median(saveFresh.cpuMillis()), Stats.median(read.millis()), Stats.median(read.cpuMillis()),
                    save.millis().size());
        }
    }

    public static void main(String[] args) throws IOException {
        int hosts = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        System.out.println(run(hosts, runs).summary());
    }

    static Result run(CostSettings settings) throws IOException {
        Result result = run(settings.stateHosts(), settings.stateRuns());
        CostBenchmark.progress(result.summary());
        return result;
    }

    static Result run(int hosts, int runs) throws IOException {
        Path directory = Files.createTempDirectory("cost-state-file");
        Path file = directory.resolve("state.properties");
        long now = System.currentTimeMillis();
        List<String> warnings = new CopyOnWriteArrayList<>();
        try {
            FileKnowledgeStore store = FileKnowledgeStore.open(file, () -> now, MAX_AGE_MILLIS, warnings::add);
            int held = fill(store, hosts, now);
            Step saveFresh = new Step();
            Step save = new Step();
            Step read = new Step();
            int readBack = 0;
            for (int run = 0; run < WARM_UPS + runs; run++) {
                boolean warmUp = run < WARM_UPS;
                Files.deleteIfExists(file);
                Timer timer = new Timer();
                store.save();
                timer.stop(warmUp ? null : saveFresh);
                timer = new Timer();
                store.save();
                timer.stop(warmUp ? null : save);
                timer = new Timer();
                FileKnowledgeStore reopened = FileKnowledgeStore.open(file, () -> now, MAX_AGE_MILLIS, warnings::add);
                timer.stop(warmUp ? null : read);
                readBack = reopened.snapshot().size();
            }
            if (!warnings.isEmpty()) {
                throw new IllegalStateException("the state file warned, so it did not measure a save and a read: " + warnings);
            }
            return new Result(hosts, held, Files.size(file), readBack, String.valueOf(Files.getFileStore(directory).type()),
                    saveFresh, save, read);
        } finally {
            Files.deleteIfExists(file);
            Files.delete(directory);
        }
    }

    /** Started on creation: the system clock, and this thread's processor time (a collector's own threads are not in it). */
    private static final class Timer {
        private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
        private final long startNanos = System.nanoTime();
        private final long startCpuNanos = THREADS.getCurrentThreadCpuTime();

        /** Into {@code step}, or nowhere for a warm-up. */
        void stop(Step step) {
            long cpuNanos = THREADS.getCurrentThreadCpuTime() - startCpuNanos;
            long nanos = System.nanoTime() - startNanos;
            if (step != null) {
                step.millis().add(nanos / 1e6);
                step.cpuMillis().add(cpuNanos / 1e6);
            }
        }
    }

    /**
     * Knowledge through the store's own operations, with the values the engine records: a ceiling
     * of 10 to 100 requests a minute and a pace at that rate, the refusals of the last hour with a
     * {@code Retry-After} of 30 s on three hosts in four. Returns how many hosts are held.
     */
    private static int fill(FileKnowledgeStore store, int hosts, long now) {
        int held = 0;
        for (int h = 0; h < hosts; h++) {
            String host = String.format(Locale.ROOT, "records-%05d.county.example.gov:443", h);
            OptionalLong header = h % 4 == 3 ? OptionalLong.empty() : OptionalLong.of(30_000);
            int streaks = 1 + h % MOST_STREAKS;
            long refusedAt = now - 3_600_000 + h % 1_000;
            for (int s = 0; s < streaks; s++) {
                refusedAt += 600_000;
                store.recordRefusal(host, refusedAt, refusedAt - 120, header, s > 0);
                store.recordRefusal(host, refusedAt + 40, refusedAt - 80, header, s > 0);
                store.recordRecovery(host, refusedAt + 31_000);
            }
            // What the last streak's first refusal taught, and the wait it imposed.
            int ceiling = 10 + h % 91;
            store.learn(host, refusedAt, Optional.of(new PaceSchedule(ceiling / 60.0, refusedAt, 4 * WINDOW_MILLIS)),
                    OptionalInt.of(ceiling));
            store.imposeNotBefore(host, refusedAt + 30_000);
            store.reserveSlot(host, now, WINDOW_MILLIS / ceiling, WINDOW_MILLIS);
            if (h % HELD_EVERY == 0) {
                store.recordRefusal(host, now - 1_000, now - 1_100, OptionalLong.of(HOLD_MILLIS), true);
                store.holdUntil(host, now + HOLD_MILLIS, "Retry-After named a moment 3600s away, beyond max-sleep 300s, twice");
                held++;
            }
        }
        if (store.snapshot().size() != hosts) {
            throw new IllegalStateException(store.snapshot().size() + " hosts known of " + hosts);
        }
        return held;
    }
}
