package dev.retryafter.it.bench;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.HostSnapshot;
import dev.retryafter.agent.engine.knowledge.InMemoryKnowledgeStore;
import dev.retryafter.agent.engine.knowledge.KnowledgeStore;
import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.engine.PolicyLookup;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.testing.VirtualClock;
import dev.retryafter.agent.testing.VirtualScheduler;
import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalStats;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * A fleet in virtual time: {@code jvms} engines, each with its own host states (permits, counters),
 * one worker each, every one fetching its own {@code records} from one portal that counts them
 * together in fixed windows. Shared, the engines use one {@link KnowledgeStore} (the same operations
 * the Redis store runs in Lua, here in memory); not shared, each has its own, as JVMs without a
 * store do. Deterministic: every worker is a chain of events on one {@link VirtualScheduler}.
 */
final class VirtualFleetRun {

    static final int LIMIT = 20;
    static final long WINDOW = 2_000;
    /** Loopback and a real JVM's own work: a few milliseconds a round trip. */
    static final long LATENCY = 5;
    private static final long CAP = 3_600_000;
    private static final boolean TRACE = Boolean.getBoolean("fleet.trace");

    /** The policy bench.FleetBenchmark and the fleet tests give the agent. */
    static final Policy POLICY = Policy.builder().minSleepMillis(300).maxSleepMillis(3_000).windowMillis(WINDOW).maxAttempts(12).build();

    private final VirtualClock clock = new VirtualClock();
    private final VirtualScheduler scheduler = new VirtualScheduler(clock);
    private final long start = clock.millis();
    private final PortalModel portal;
    private final List<RetryEngine> engines = new ArrayList<>();
    private final int records;
    private final int[] fetched;
    private final int[] lost;
    private final long[] firstSent;
    private final long[] finishedAt;
    private long firstArrival = -1;
    /** Admitted per portal window, from the first arrival: where a fleet leaves the limit unused. */
    private final List<Integer> admittedPerWindow = new ArrayList<>();
    private long requestsAfterFirstWindows;
    private long refusalsAfterFirstWindows;
    private Throwable failure;

    private VirtualFleetRun(int jvms, Behaviour behaviour, boolean shared, int records, long seed) {
        this.portal = new PortalModel(behaviour, LIMIT, WINDOW);
        this.records = records;
        KnowledgeStore fleet = new InMemoryKnowledgeStore();
        for (int j = 0; j < jvms; j++) {
            engines.add(RetryEngine.builder().clock(clock).sleeper(clock).delays(scheduler)
                    .random(new Random(seed + j)::nextDouble)
                    .policies(PolicyLookup.everyHost(POLICY))
                    .knowledge(shared ? fleet : new InMemoryKnowledgeStore())
                    .build());
        }
        fetched = new int[jvms];
        lost = new int[jvms];
        firstSent = new long[jvms];
        finishedAt = new long[jvms];
        java.util.Arrays.fill(firstSent, -1);
    }

    static Result run(int jvms, Behaviour behaviour, boolean shared, int records, long seed) {
        return new VirtualFleetRun(jvms, behaviour, shared, records, seed).run();
    }

    private Result run() {
        for (int j = 0; j < engines.size(); j++) {
            int jvm = j;
            // JVMs start a few milliseconds apart, as real ones never start together.
            scheduler.at(start + 7L * j, () -> next(jvm, 0));
        }
        scheduler.run(start + CAP);
        if (failure != null) {
            throw new IllegalStateException("the fleet run failed", failure);
        }
        List<String> learned = new ArrayList<>();
        for (RetryEngine engine : engines) {
            HostSnapshot host = engine.hosts().iterator().next().snapshot(clock.millis());
            learned.add(String.format(Locale.ROOT, "%s ceiling %d pace %.0f/min", host.category.label(),
                    host.learnedCeiling().orElse(-1), host.pacePerMinute()));
        }
        long[] elapsed = new long[engines.size()];
        for (int j = 0; j < elapsed.length; j++) {
            elapsed[j] = finishedAt[j] == 0 ? CAP : finishedAt[j] - firstSent[j];
        }
        return new Result(engines.size(), portal.stats(), fetched.clone(), lost.clone(), elapsed, requestsAfterFirstWindows,
                refusalsAfterFirstWindows, learned, admittedPerWindow);
    }

    private void next(int jvm, int done) {
        if (done == records) {
            finishedAt[jvm] = clock.millis();
            return;
        }
        Call call = engines.get(jvm).open("portal.example", 443, true);
        attempt(jvm, done, call);
    }

    private void attempt(int jvm, int done, Call call) {
        call.turn().whenComplete((ignored, refused) -> {
            if (refused != null) {
                lost[jvm]++;
                long now = clock.millis();
                scheduler.at(now + 1, () -> next(jvm, done + 1));
                return;
            }
            long sent = clock.millis();
            if (firstSent[jvm] < 0) {
                firstSent[jvm] = sent;
            }
            scheduler.at(sent + LATENCY, () -> {
                try {
                    long now = clock.millis();
                    PortalModel.Reply reply = portal.handle(now, "jvm-" + jvm);
                    count(now, reply);
                    boolean again = call.onResponse(reply.status, reply.retryAfter);
                    call.endAttempt();
                    if (TRACE && now - start < 8_000) {
                        System.out.println((now - start) + " jvm" + jvm + " " + reply.status + " " + call.lastDecision());
                    }
                    if (again) {
                        scheduler.at(now, () -> attempt(jvm, done, call));
                        return;
                    }
                    if (reply.status == 200) {
                        fetched[jvm]++;
                    } else {
                        lost[jvm]++;
                    }
                    scheduler.at(now, () -> next(jvm, done + 1));
                } catch (Throwable t) {
                    failure = t;
                }
            });
        });
    }

    /** Refusals are judged after the first two windows: the unpaced first burst is the price of learning. */
    private void count(long now, PortalModel.Reply reply) {
        if (firstArrival < 0) {
            firstArrival = now;
        }
        int window = (int) ((now - firstArrival) / WINDOW);
        while (admittedPerWindow.size() <= window) {
            admittedPerWindow.add(0);
        }
        if (!reply.isRefusal()) {
            admittedPerWindow.set(window, admittedPerWindow.get(window) + 1);
        }
        if (now - firstArrival >= 2 * WINDOW) {
            requestsAfterFirstWindows++;
            if (reply.isRefusal()) {
                refusalsAfterFirstWindows++;
            }
        }
    }

    /** One fleet's run, as the benchmark and the tests read it. */
    static final class Result {
        final int jvms;
        final PortalStats stats;
        final int[] fetched;
        final int[] lost;
        final long[] elapsedMillis;
        final long requestsAfterFirstWindows;
        final long refusalsAfterFirstWindows;
        final List<String> learned;
        final List<Integer> admittedPerWindow;

        Result(int jvms, PortalStats stats, int[] fetched, int[] lost, long[] elapsedMillis, long requestsAfterFirstWindows,
               long refusalsAfterFirstWindows, List<String> learned, List<Integer> admittedPerWindow) {
            this.admittedPerWindow = admittedPerWindow;
            this.jvms = jvms;
            this.stats = stats;
            this.fetched = fetched;
            this.lost = lost;
            this.elapsedMillis = elapsedMillis;
            this.requestsAfterFirstWindows = requestsAfterFirstWindows;
            this.refusalsAfterFirstWindows = refusalsAfterFirstWindows;
            this.learned = learned;
        }

        /**
         * The ideal time over the time taken, as the ingestion benchmark reads it: the records at the
         * limit ({@code records / LIMIT} windows) over the longest JVM's time. 1 is the portal's limit, used in full.
         */
        double efficiency() {
            return stats.admitted * WINDOW / (double) LIMIT / Math.max(1, longest());
        }

        /** Admitted over what the limit allowed in the whole windows the longest JVM began: the last, part window counts in full. */
        double wholeWindowEfficiency() {
            long windows = Math.max(1, (longest() + WINDOW - 1) / WINDOW);
            return stats.admitted / (double) (LIMIT * windows);
        }

        long longest() {
            long max = 0;
            for (long e : elapsedMillis) {
                max = Math.max(max, e);
            }
            return max;
        }

        long shortest() {
            long min = Long.MAX_VALUE;
            for (long e : elapsedMillis) {
                min = Math.min(min, e);
            }
            return min;
        }

        /** The slowest JVM's time over the fastest's, less one: 0.25 is "within 25%". */
        double spread() {
            return longest() / (double) shortest() - 1;
        }

        double refusedAfterFirstWindows() {
            return requestsAfterFirstWindows == 0 ? 0 : refusalsAfterFirstWindows / (double) requestsAfterFirstWindows;
        }

        int lostRecords() {
            int n = 0;
            for (int l : lost) {
                n += l;
            }
            return n;
        }

        String cell() {
            return String.format(Locale.ROOT, "%.2f · %.1f%% · %d · ×%.2f", efficiency(), 100 * refusedAfterFirstWindows(), lostRecords(),
                    1 + spread());
        }

        String line(String name) {
            return String.format(Locale.ROOT, "%-9s %d JVMs: efficiency %.2f (%.2f in whole windows), %d requests, %d refused (%.1f%% after the first windows),"
                            + " %d lost, JVM times %s ms (spread %.0f%%); learned %s",
                    name, jvms, efficiency(), wholeWindowEfficiency(), stats.requests, stats.refusals, 100 * refusedAfterFirstWindows(), lostRecords(),
                    java.util.Arrays.toString(elapsedMillis), 100 * spread(), learned);
        }
    }

    /**
     * The fleet-efficiency table in virtual time: 1, 3 and 5 engines, each fetching {@code records}
     * (first argument, default 100), with stores of their own and with one shared, against each of
     * the lying headers; a second argument runs only that many engines. Markdown, to standard output.
     */
    public static void main(String[] args) {
        int records = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int[] sizes = args.length > 1 ? new int[] {Integer.parseInt(args[1])} : new int[] {1, 3, 5};
        System.out.println("Each cell: efficiency (ideal time / time taken) · refused after the first two windows · records lost"
                + " · slowest engine's time over the fastest's; " + records + " records per engine, limit " + LIMIT + " per "
                + WINDOW / 1000 + " s window, " + LATENCY + " ms round trip.");
        System.out.println();
        System.out.println("| portal | engines | own stores (no sharing) | one shared store |");
        System.out.println("|---|--:|---|---|");
        for (Behaviour b : new Behaviour[] {Behaviour.ALWAYS_ZERO, Behaviour.CONSTANT_OVERSTATED, Behaviour.ABSENT}) {
            for (int jvms : sizes) {
                Result alone = run(jvms, b, false, records, 7);
                Result shared = run(jvms, b, true, records, 7);
                System.out.println("| " + b.name().toLowerCase(Locale.ROOT).replace('_', '-') + " | " + jvms + " | " + alone.cell()
                        + " | " + shared.cell() + " |");
                if (TRACE) {
                    System.out.println(alone.line("alone") + "\n" + shared.line("shared") + "\nadmitted per window " + shared.admittedPerWindow);
                }
            }
        }
    }
}
