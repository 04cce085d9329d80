package dev.retryafter.it.cost;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.RetryEngine;

import java.io.IOException;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The child JVM of the engine's own cost: the agent's engine as a plain library, on a small heap with
 * the serial collector, whose full collection on {@code System.gc()} leaves exactly what is
 * reachable. Memory is measured in virtual time; the time a request takes, on the system clock. Prints
 * <pre>
 * POPULATION name=mixed hosts=10000 requests=1 bytes=12345678
 * CHECKPOINT calls=100000 used=2345678
 * TIME calls=1000000 nanos=345678901
 * </pre>
 * A population is a fresh engine's retained heap after requests to each of {@code hosts} hosts:
 * {@code admitted}, one request each, answered 200 at once; {@code refused}, one request each,
 * refused once ({@code 429}, {@code Retry-After: 0}) and then let through, so every learned
 * structure exists; {@code mixed}, one request each, one host in {@code refusedEvery} refused;
 * {@code busy}, {@code busyRequests} requests each, one in {@code refuseEvery} refused first, enough
 * to fill the history of successes the engine keeps per host. Checkpoints are heap in use after
 * {@code calls} requests to one host, one in {@code refuseEvery} refused first. The time is for
 * {@code calls} admitted requests to one host, one thread, after as many unmeasured.
 *
 * <p>Arguments: hosts, refusedEvery, busyRequests, calls, refuseEvery, checkpoints.
 */
public final class EngineProbe {

    static final String POPULATION = "POPULATION";
    static final String CHECKPOINT = "CHECKPOINT";
    static final String TIME = "TIME";

    /** A county portal's round trip; with a virtual clock it only spaces the timestamps the engine keeps. */
    private static final long LATENCY_MILLIS = 50;
    private static final int PORT = 443;

    /** Virtual epoch milliseconds: sleeps advance it instead of waiting, so a million requests take seconds. */
    private final AtomicLong now = new AtomicLong(1_800_000_000_000L);

    private EngineProbe() {
    }

    public static void main(String[] args) throws Exception {
        int hosts = Integer.parseInt(args[0]);
        int refusedEvery = Integer.parseInt(args[1]);
        int busyRequests = Integer.parseInt(args[2]);
        long calls = Long.parseLong(args[3]);
        int refuseEvery = Integer.parseInt(args[4]);
        int checkpoints = Integer.parseInt(args[5]);
        EngineProbe probe = new EngineProbe();
        probe.warmUp(refusedEvery, refuseEvery);
        probe.population("admitted", hosts, 1, (host, request) -> false);
        probe.population("refused", hosts, 1, (host, request) -> true);
        probe.population("mixed", hosts, 1, (host, request) -> host % refusedEvery == 0);
        probe.population("busy", hosts, busyRequests, (host, request) -> request % refuseEvery == 0);
        probe.longRun(calls, refuseEvery, checkpoints);
        timeAdmittedRequests(calls);
    }

    /** Every path once, on an engine then dropped: classes initialised and their static state allocated before any baseline. */
    private void warmUp(int refusedEvery, int refuseEvery) throws IOException, InterruptedException {
        RetryEngine engine = engine();
        for (int i = 0; i < 200; i++) {
            request(engine, hostName(i), i % refusedEvery == 0);
        }
        for (int i = 1; i <= 10 * refuseEvery; i++) {
            request(engine, "warm-up.example.gov", i % refuseEvery == 0);
        }
    }

    /** Which requests are refused before being let through: the n-th (from 1) to host h (from 0). */
    @FunctionalInterface
    private interface Refusals {
        boolean refuseFirst(int host, int request);
    }

    private void population(String name, int hosts, int requestsPerHost, Refusals refusals)
            throws IOException, InterruptedException {
        RetryEngine engine = engine();
        long before = usedHeapAfterGc();
        for (int h = 0; h < hosts; h++) {
            String host = hostName(h);
            for (int r = 1; r <= requestsPerHost; r++) {
                request(engine, host, refusals.refuseFirst(h, r));
            }
        }
        long after = usedHeapAfterGc();
        // Still reachable after the measurement, and nothing was evicted: every host is in the figure.
        int tracked = engine.hosts().size();
        if (tracked != hosts) {
            throw new IllegalStateException(name + ": " + tracked + " hosts tracked of " + hosts);
        }
        System.out.printf(Locale.ROOT, "%s name=%s hosts=%d requests=%d bytes=%d%n", POPULATION, name, hosts,
                requestsPerHost, after - before);
    }

    /** The first checkpoint is after one request; then every {@code calls / checkpoints}. Printed at the end, so printing allocates nothing in between. */
    private void longRun(long calls, int refuseEvery, int checkpoints) throws IOException, InterruptedException {
        RetryEngine engine = engine();
        long every = calls / checkpoints;
        long[] at = new long[checkpoints + 1];
        long[] used = new long[checkpoints + 1];
        request(engine, "portal.example.gov", false);
        at[0] = 1;
        used[0] = usedHeapAfterGc();
        for (long i = 2; i <= calls; i++) {
            request(engine, "portal.example.gov", i % refuseEvery == 0);
            if (i % every == 0) {
                int checkpoint = (int) (i / every);
                at[checkpoint] = i;
                used[checkpoint] = usedHeapAfterGc();
            }
        }
        for (int c = 0; c <= checkpoints; c++) {
            System.out.printf(Locale.ROOT, "%s calls=%d used=%d%n", CHECKPOINT, at[c], used[c]);
        }
        if (engine.hosts().size() != 1) {
            throw new IllegalStateException("one host expected");
        }
    }

    /**
     * The engine's share of a happy-path request, as the agent runs it: the system clock, one host,
     * every request let through. The advice around it and the client's own work are not in it.
     */
    private static void timeAdmittedRequests(long calls) throws IOException, InterruptedException {
        RetryEngine engine = RetryEngine.builder().build();
        for (long i = 0; i < calls; i++) {
            admitted(engine);
        }
        long start = System.nanoTime();
        for (long i = 0; i < calls; i++) {
            admitted(engine);
        }
        long nanos = System.nanoTime() - start;
        System.out.printf(Locale.ROOT, "%s calls=%d nanos=%d%n", TIME, calls, nanos);
    }

    private static void admitted(RetryEngine engine) throws IOException, InterruptedException {
        Call call = engine.open("portal.example.gov", PORT, true);
        call.awaitTurn();
        call.onResponse(200, null);
        call.endAttempt();
    }

    /** One request as the agent's adapters drive it, through every attempt. */
    private void request(RetryEngine engine, String host, boolean refuseFirst) throws IOException, InterruptedException {
        Call call = engine.open(host, PORT, true);
        boolean refuse = refuseFirst;
        do {
            call.awaitTurn();
            now.addAndGet(LATENCY_MILLIS);
            call.onResponse(refuse ? 429 : 200, refuse ? "0" : null);
            call.endAttempt();
            refuse = false;
        } while (call.retryRequested());
    }

    /** Default policies, as the agent runs with no policy file; only time is virtual. */
    private RetryEngine engine() {
        return RetryEngine.builder().clock(now::get).sleeper(now::addAndGet).build();
    }

    /** Names as long as real portals' ({@code data.kingcounty.gov} and the like). */
    private static String hostName(int i) {
        return String.format(Locale.ROOT, "records-%05d.county.example.gov", i);
    }

    /** Collected until it stops shrinking: the smallest of a few full collections is what is reachable. */
    private static long usedHeapAfterGc() {
        Runtime runtime = Runtime.getRuntime();
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            least = Math.min(least, runtime.totalMemory() - runtime.freeMemory());
        }
        return least;
    }
}
