package dev.retryafter.it.bench;

import dev.retryafter.demo.portal.Behaviour;

import java.util.List;

/** What one benchmark run covers. */
record Settings(String mode, int records, List<Scenario> scenarios, List<Integer> threads, long latencyMillis,
                long seed, long capMillis) {

    /** A county portal's round trip; loopback is far less. */
    static final long LATENCY_MILLIS = 50;
    static final long SEED = 20_261_101;
    /** A strategy still going after two virtual days has stalled: the run is called off there. */
    static final long CAP_MILLIS = 48 * 3_600_000L;
    static final List<Integer> THREADS = List.of(1, 8);

    /**
     * Every behaviour, each at a fixed limit between the 12 and 120 a minute county portals enforce
     * (the guide's King 40, Pierce 100, Snohomish 118 and Kitsap 12 among them), spread so that each
     * limit meets more than one kind of header.
     */
    static Settings full() {
        return new Settings("full", 2_000, List.of(
                new Scenario(Behaviour.TRUTHFUL, 40),
                new Scenario(Behaviour.ALWAYS_ZERO, 60),
                new Scenario(Behaviour.CONSTANT_OVERSTATED, 30),
                new Scenario(Behaviour.UNRELIABLE, 100),
                new Scenario(Behaviour.ABSENT, 12),
                new Scenario(Behaviour.PAST_DATE, 118),
                new Scenario(Behaviour.HEADER_ON_SUCCESS, 120),
                new Scenario(Behaviour.SERVICE_UNAVAILABLE, 60),
                new Scenario(Behaviour.DRIFTS_TO_CONSTANT, 40),
                new Scenario(Behaviour.LIMIT_DOUBLES, 30)),
                THREADS, LATENCY_MILLIS, SEED, CAP_MILLIS);
    }

    /**
     * The guide's three main liars, a few seconds of wall time. Each limit leaves 200 records well over
     * ten windows with a part window at the end, so a client that bursts at every reset can beat
     * {@code records / limit} by a few percent, never by a tenth.
     */
    static Settings smoke() {
        return new Settings("smoke", 200, List.of(
                new Scenario(Behaviour.TRUTHFUL, 12),
                new Scenario(Behaviour.ALWAYS_ZERO, 15),
                new Scenario(Behaviour.CONSTANT_OVERSTATED, 18)),
                THREADS, LATENCY_MILLIS, SEED, CAP_MILLIS);
    }

    int cellCount() {
        return scenarios.size() * threads.size() * Contender.ALL.size();
    }
}
