package dev.retryafter.it.harness;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * One loopback portal that several scraper JVMs share, as the demo's {@code PortalServer} but
 * measured from the portal's side: the {@link PortalModel} enforces a limit in fixed windows with a
 * lying header, and this counts what it saw, by the {@code apikey} that names each JVM. Times are
 * the portal's, from each JVM's first request to its last, so a JVM's start-up (seconds on a loaded
 * machine, and nothing the portal sees) is not counted against the fleet.
 */
public final class FleetPortal implements AutoCloseable {

    private final PortalModel model;
    private final int limit;
    private final long windowMillis;
    private final HttpServer server;
    private final CountDownLatch gate;
    /** Longer than five JVMs take to start on a loaded two-core machine; {@link ScraperFleet} gives the scraper a longer request timeout. */
    static final long GATE_MILLIS = 90_000;

    // Guarded by this.
    private final Map<String, long[]> firstAndLast = new HashMap<>();
    private long firstArrival = Long.MIN_VALUE;
    private long lastArrival;
    private long admitted;
    private long requests;
    private long refusals;
    private long requestsAfterFirstWindows;
    private long refusalsAfterFirstWindows;
    private final List<Integer> admittedPerWindow = new ArrayList<>();
    /** Per JVM (by API key): what it had admitted in each window. */
    private final Map<String, List<Integer>> admittedPerJvmWindow = new java.util.TreeMap<>();

    public FleetPortal(Behaviour behaviour, int limit, long windowMillis) throws IOException {
        this(behaviour, limit, windowMillis, 0);
    }

    /**
     * With {@code startTogether} JVMs (0: no gate), the first request of each waits until every one
     * has sent its first (or {@link #GATE_MILLIS} have passed): JVMs launched at once start seconds
     * apart on a loaded machine, and a fleet whose members start apart is not what is measured.
     */
    public FleetPortal(Behaviour behaviour, int limit, long windowMillis, int startTogether) throws IOException {
        this.gate = new CountDownLatch(startTogether);
        this.model = new PortalModel(behaviour, limit, windowMillis);
        this.limit = limit;
        this.windowMillis = windowMillis;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.setExecutor(Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "fleet-portal");
            thread.setDaemon(true);
            return thread;
        }));
        server.createContext("/", this::handle);
        server.start();
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (InputStream body = exchange.getRequestBody()) {
            while (body.read() >= 0) {
                // drain
            }
            String query = String.valueOf(exchange.getRequestURI().getQuery());
            if (gate.getCount() > 0) {
                waitAtTheGate(query);
            }
            long now = System.currentTimeMillis();
            PortalModel.Reply reply = model.handle(now, null);
            count(now, query, reply.isRefusal());
            byte[] payload = (reply.isRefusal() ? "{\"error\":\"rate limited\"}" : "{\"record\":1}").getBytes(StandardCharsets.UTF_8);
            if (reply.retryAfter != null) {
                exchange.getResponseHeaders().set("Retry-After", reply.retryAfter);
            }
            exchange.sendResponseHeaders(reply.status, payload.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(payload);
            }
        } finally {
            exchange.close();
        }
    }

    private final java.util.Set<String> arrived = new java.util.HashSet<>();

    /** Only a JVM's first request waits; once the gate has waited its longest, it stands open for every request. */
    private void waitAtTheGate(String query) {
        boolean first;
        synchronized (arrived) {
            first = arrived.add(query.startsWith("apikey=") ? query : "?");
        }
        if (!first) {
            return;
        }
        gate.countDown();
        try {
            if (!gate.await(GATE_MILLIS, TimeUnit.MILLISECONDS)) {
                while (gate.getCount() > 0) {
                    gate.countDown();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private synchronized void count(long now, String query, boolean refused) {
        if (firstArrival == Long.MIN_VALUE) {
            firstArrival = now;
        }
        lastArrival = Math.max(lastArrival, now);
        String jvm = query.startsWith("apikey=") ? query.substring("apikey=".length()) : "?";
        long[] span = firstAndLast.computeIfAbsent(jvm, k -> new long[] {now, now});
        span[1] = Math.max(span[1], now);
        requests++;
        int window = (int) ((now - firstArrival) / windowMillis);
        while (admittedPerWindow.size() <= window) {
            admittedPerWindow.add(0);
        }
        if (refused) {
            refusals++;
        } else {
            admitted++;
            admittedPerWindow.set(window, admittedPerWindow.get(window) + 1);
            List<Integer> own = admittedPerJvmWindow.computeIfAbsent(jvm, k -> new ArrayList<>());
            while (own.size() <= window) {
                own.add(0);
            }
            own.set(window, own.get(window) + 1);
        }
        if (now - firstArrival >= 2 * windowMillis) {
            requestsAfterFirstWindows++;
            if (refused) {
                refusalsAfterFirstWindows++;
            }
        }
    }

    /** What each JVM (by API key) had admitted in each window: where a fleet's shares went. */
    public synchronized String admittedPerJvmAndWindow() {
        return admittedPerJvmWindow.toString();
    }

    /** What the portal saw, at this moment. */
    public synchronized Seen seen() {
        Map<String, Long> times = new HashMap<>();
        for (Map.Entry<String, long[]> e : firstAndLast.entrySet()) {
            times.put(e.getKey(), e.getValue()[1] - e.getValue()[0]);
        }
        return new Seen(limit, windowMillis, admitted, requests, refusals, requestsAfterFirstWindows, refusalsAfterFirstWindows,
                firstArrival == Long.MIN_VALUE ? 0 : lastArrival - firstArrival, times, new ArrayList<>(admittedPerWindow));
    }

    @Override
    public void close() {
        server.stop(0);
    }

    /** The portal's counts. */
    public static final class Seen {
        public final int limit;
        public final long windowMillis;
        public final long admitted;
        public final long requests;
        public final long refusals;
        public final long requestsAfterFirstWindows;
        public final long refusalsAfterFirstWindows;
        /** From the fleet's first request to its last. */
        public final long spanMillis;
        /** Each JVM's (by apikey) first request to its last. */
        public final Map<String, Long> jvmMillis;
        public final List<Integer> admittedPerWindow;

        Seen(int limit, long windowMillis, long admitted, long requests, long refusals, long requestsAfterFirstWindows,
             long refusalsAfterFirstWindows, long spanMillis, Map<String, Long> jvmMillis, List<Integer> admittedPerWindow) {
            this.limit = limit;
            this.windowMillis = windowMillis;
            this.admitted = admitted;
            this.requests = requests;
            this.refusals = refusals;
            this.requestsAfterFirstWindows = requestsAfterFirstWindows;
            this.refusalsAfterFirstWindows = refusalsAfterFirstWindows;
            this.spanMillis = spanMillis;
            this.jvmMillis = jvmMillis;
            this.admittedPerWindow = admittedPerWindow;
        }

        /**
         * The ideal time over the time taken, as the ingestion benchmark reads it: what was admitted,
         * at the limit, is {@code admitted / limit} windows; over the fleet's span at the portal. 1 is
         * the limit used in full (a fleet that bursts at every window's start can pass it a little).
         */
        public double efficiency() {
            return admitted * (double) windowMillis / limit / Math.max(1, spanMillis);
        }

        /** Refusals among the requests after the first two windows, whose unpaced burst is the price of learning. */
        public double refusedAfterFirstWindows() {
            return requestsAfterFirstWindows == 0 ? 0 : refusalsAfterFirstWindows / (double) requestsAfterFirstWindows;
        }

        /** The slowest JVM's time at the portal over the fastest's, less one: 0.25 is "within 25%". */
        public double spread() {
            long min = Long.MAX_VALUE;
            long max = 0;
            for (long t : jvmMillis.values()) {
                min = Math.min(min, t);
                max = Math.max(max, t);
            }
            return jvmMillis.isEmpty() ? 0 : max / (double) Math.max(1, min) - 1;
        }

        public String line(String name) {
            return String.format(Locale.ROOT, "%-9s %d JVMs: efficiency %.2f, %d admitted, %d requests, %d refused (%.1f%% after the"
                            + " first windows), %d ms at the portal; JVM times %s ms (spread %.0f%%); admitted per window %s",
                    name, jvmMillis.size(), efficiency(), admitted, requests, refusals, 100 * refusedAfterFirstWindows(), spanMillis,
                    new java.util.TreeMap<>(jvmMillis).values(), 100 * spread(), admittedPerWindow);
        }
    }
}
