package dev.retryafter.agent.metrics;

import dev.retryafter.agent.GoverningSwitch;
import dev.retryafter.agent.engine.HostSnapshot;
import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.Mode;
import dev.retryafter.agent.engine.Reason;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.engine.WaitsByCause;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * What a scrape reads: the agent's figures and each tracked host's, from the snapshot the exit
 * report, the Host MBeans and {@code status} read ({@link HostState#snapshot}), taken at the scrape.
 * A host the engine does not track (never seen, evicted, forgotten) has no series; a family no host
 * has a sample of says nothing ({@link MetricsText#family}). Every name, unit and label is listed in
 * docs/metrics.md.
 */
public final class MetricsPage {

    static final String PREFIX = "retry_after_agent_";
    static final String HOST = "host";
    /** Why the time was waited: a name of the agent's one vocabulary ({@link Reason}), as the log and the report name it. */
    static final String CAUSE = "cause";

    private final RetryEngine engine;
    private final GoverningSwitch governing;
    private final String version;

    public MetricsPage(RetryEngine engine, GoverningSwitch governing, String version) {
        this.engine = engine;
        this.governing = governing;
        this.version = version;
    }

    /** The page in 0.0.4 text, or OpenMetrics. */
    String render(boolean openMetrics) {
        MetricsText text = new MetricsText(openMetrics);
        Collection<HostState> tracked = engine.hosts();
        long now = engine.now();
        List<HostSnapshot> hosts = new ArrayList<>(tracked.size());
        for (HostState state : tracked) {
            hosts.add(state.snapshot(now));
        }
        Collections.sort(hosts, BY_NAME);
        agent(text, hosts.size());
        hosts(text, hosts);
        return text.finish();
    }

    private void agent(MetricsText text, int tracked) {
        text.family(PREFIX + "build_info", MetricsText.Type.GAUGE, "The agent's version; always 1")
                .sample("version", version, 1);
        text.family(PREFIX + "enabled", MetricsText.Type.GAUGE,
                "1 while the agent governs new requests, 0 while it is switched off at run time (JMX Enabled)")
                .sample(governing.isOn() ? 1 : 0);
        text.family(PREFIX + "mode", MetricsText.Type.GAUGE,
                "The agent-wide mode: 1 for the one in force (a policy's own mode wins over it for its hosts)");
        Mode current = engine.mode();
        for (Mode mode : Mode.values()) {
            text.sample("mode", mode.label(), mode == current ? 1 : 0);
        }
        text.family(PREFIX + "hosts_tracked", MetricsText.Type.GAUGE, "Hosts the agent tracks now")
                .sample(tracked);
    }

    private static void hosts(MetricsText text, List<HostSnapshot> hosts) {
        perHost(text, hosts, PerHost.REQUESTS);
        text.family(PREFIX + "refusals", MetricsText.Type.COUNTER,
                "Refusals the host answered (a retry status: 429, 503 unless configured), by status");
        for (HostSnapshot s : hosts) {
            for (long[] pair : s.refusalsByStatus()) {
                text.sample(HOST, s.host, "status", Long.toString(pair[0]), pair[1]);
            }
        }
        perHost(text, hosts, PerHost.RETRIES, PerHost.GIVEN_UP);
        text.family(PREFIX + "wait_seconds", MetricsText.Type.COUNTER,
                "Time requests to the host spent waiting before they were sent, by cause: a refusal's reason, PACE, QUEUE_AT_CAP, RATE_LIMIT_HINTS");
        for (HostSnapshot s : hosts) {
            WaitsByCause waits = s.waitedByCause;
            for (Reason cause : waits.causes()) {
                text.sample(HOST, s.host, CAUSE, cause.name(), waits.millis(cause) / 1000.0);
            }
        }
        perHost(text, hosts, PerHost.LONGEST_WAIT, PerHost.HELD, PerHost.HELD_UNTIL, PerHost.HOLDS, PerHost.HELD_REQUESTS, PerHost.PACE,
                PerHost.IN_FLIGHT, PerHost.MAX_IN_FLIGHT, PerHost.WINDOW, PerHost.LEARNED_CEILING);
        text.family(PREFIX + "category", MetricsText.Type.GAUGE,
                "What kind of Retry-After the host sends, as the agent judges it: 1 for the host's category");
        for (HostSnapshot s : hosts) {
            text.sample(HOST, s.host, "category", s.category.label(), 1);
        }
    }

    /** Each of {@code families}, a sample a host; a host without a value (NaN) has none. */
    private static void perHost(MetricsText text, List<HostSnapshot> hosts, PerHost... families) {
        for (PerHost family : families) {
            text.family(PREFIX + family.name, family.type, family.help);
            for (HostSnapshot s : hosts) {
                double value = family.of(s);
                if (!Double.isNaN(value)) {
                    text.sample(HOST, s.host, value);
                }
            }
        }
    }

    /** The families of one unlabelled figure a host. Constant bodies, not lambdas: the endpoint spins no lambda class. */
    private enum PerHost {
        REQUESTS("requests", MetricsText.Type.COUNTER, "Requests sent to the host, each retry included") {
            @Override double of(HostSnapshot s) { return s.requests; }
        },
        RETRIES("retries", MetricsText.Type.COUNTER, "Refused requests the agent sent again") {
            @Override double of(HostSnapshot s) { return s.retries; }
        },
        GIVEN_UP("given_up", MetricsText.Type.COUNTER,
                "Refusals handed back to the application: its attempts used up, or a body that cannot be sent twice") {
            @Override double of(HostSnapshot s) { return s.gaveUp; }
        },
        LONGEST_WAIT("longest_wait_seconds", MetricsText.Type.GAUGE, "The longest single wait the agent decided on for the host") {
            @Override double of(HostSnapshot s) { return s.longestWaitMillis / 1000.0; }
        },
        HELD("held", MetricsText.Type.GAUGE, "1 while the host is held: its requests fail fast") {
            @Override double of(HostSnapshot s) { return s.holdUntil().isPresent() ? 1 : 0; }
        },
        HELD_UNTIL("held_until_timestamp_seconds", MetricsText.Type.GAUGE, "When the host's hold ends, in seconds since the epoch") {
            @Override double of(HostSnapshot s) { return s.holdUntil().isPresent() ? s.holdUntil().getAsLong() / 1000.0 : Double.NaN; }
        },
        HOLDS("holds", MetricsText.Type.COUNTER, "Holds the host was put under") {
            @Override double of(HostSnapshot s) { return s.holds; }
        },
        HELD_REQUESTS("held_requests", MetricsText.Type.COUNTER, "Requests that failed fast because the host was held") {
            @Override double of(HostSnapshot s) { return s.heldRequests; }
        },
        ENDED_WHILE_WAITING("requests_ended_while_waiting", MetricsText.Type.COUNTER,
                "Requests the application ended (cancelled, aborted, interrupted) while they waited for their turn") {
            @Override double of(HostSnapshot s) { return s.endedWhileWaiting; }
        },
        PACE("pace_requests_per_second", MetricsText.Type.GAUGE, "The pace the host's requests are sent at; 0 when not paced") {
            @Override double of(HostSnapshot s) { return s.pacePerSecond; }
        },
        IN_FLIGHT("in_flight", MetricsText.Type.GAUGE, "Requests to the host holding a permit now: sent, or waiting for their moment to go") {
            @Override double of(HostSnapshot s) { return s.inFlight; }
        },
        MAX_IN_FLIGHT("max_in_flight", MetricsText.Type.GAUGE, "The cap on requests in flight to the host: max-concurrency, or lower as learned") {
            @Override double of(HostSnapshot s) { return s.maxConcurrency; }
        },
        WINDOW("window_seconds", MetricsText.Type.GAUGE, "The host's limit window: as learned, else the policy's window") {
            @Override double of(HostSnapshot s) { return s.windowMillis / 1000.0; }
        },
        LEARNED_CEILING("learned_ceiling", MetricsText.Type.GAUGE, "Requests the host let through in a window before it refused, as last learned") {
            @Override double of(HostSnapshot s) { return s.learnedCeiling().isPresent() ? s.learnedCeiling().getAsInt() : Double.NaN; }
        };

        final String name;
        final MetricsText.Type type;
        final String help;

        PerHost(String name, MetricsText.Type type, String help) {
            this.name = name;
            this.type = type;
            this.help = help;
        }

        abstract double of(HostSnapshot s);
    }

    private static final Comparator<HostSnapshot> BY_NAME = new Comparator<HostSnapshot>() {
        @Override
        public int compare(HostSnapshot a, HostSnapshot b) {
            return a.host.compareTo(b.host);
        }
    };
}
