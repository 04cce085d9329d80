package dev.retryafter.agent.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.retryafter.agent.log.AgentLogger;
import dev.retryafter.agent.config.MetricsAddress;

import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code metrics = 127.0.0.1:9464}: serves {@link MetricsPage} at {@code /metrics} with the JDK's own
 * HTTP server ({@code com.sun.net.httpserver}, in every JDK from 8 to 25), so the agent carries no
 * library for it. Everything happens on one daemon thread of its own, started once the agent is
 * installed: the server's some 60 classes, the name lookup and the bind are never on the
 * application's way, and a scrape is answered on the server's dispatcher thread, a daemon too (a
 * thread takes its maker's daemon status). An address that cannot be had (a port in use) is one
 * ERROR line, and the agent governs as ever. Stopped at exit.
 *
 * <p>On Java 8 the server makes JUL's {@code LogManager} as it starts (later JDKs log through
 * {@code System.Logger}, which does not): when the application names its own log manager
 * ({@code -Djava.util.logging.manager}) that its class loader cannot load yet, the server waits until
 * it can, as the MBeans do.
 */
public final class MetricsEndpoint {

    static final String PATH = "/metrics";
    /** How long to wait for a named log manager to become loadable; then the endpoint starts all the same. */
    static final long LOG_MANAGER_PATIENCE_MILLIS = 300_000;

    private MetricsEndpoint() {
    }

    /** Starts the endpoint on a daemon thread and returns at once. Never throws for what happens there. */
    public static void start(MetricsAddress address, MetricsPage page, AgentLogger log) {
        Thread thread = new Thread(new Starter(address, page, log), "retry-after-agent-metrics");
        thread.setDaemon(true);
        thread.start();
    }

    /** The endpoint's thread: binds, serves, and arranges the stop at exit. */
    private static final class Starter implements Runnable {
        private final MetricsAddress address;
        private final MetricsPage page;
        private final AgentLogger log;

        Starter(MetricsAddress address, MetricsPage page, AgentLogger log) {
            this.address = address;
            this.page = page;
            this.log = log;
        }

        @Override
        public void run() {
            // Made from the application's thread, this one and the server's live as long as the JVM:
            // they must not keep a redeployed web application's class loader reachable.
            Thread.currentThread().setContextClassLoader(null);
            try {
                awaitLogManager();
                serve();
            } catch (InterruptedException e) {
                // the JVM is going: nothing to serve
            } catch (Throwable t) {
                log.error("no metrics endpoint on {}: {}; the agent governs as ever", address, String.valueOf(t));
            }
        }

        private void serve() throws IOException {
            HttpServer server = open(address, page, log);
            if (server == null) {
                return;
            }
            try {
                Runtime.getRuntime().addShutdownHook(new Thread(new Stop(server), "retry-after-agent-metrics-stop"));
            } catch (IllegalStateException exiting) {
                server.stop(0);
                return;
            }
            announce(log, server.getAddress().getAddress(), "http://" + address + PATH);
        }

        private void awaitLogManager() throws InterruptedException {
            String manager = System.getProperty("java.util.logging.manager");
            if (manager == null || manager.isEmpty()) {
                return;
            }
            long deadline = System.currentTimeMillis() + LOG_MANAGER_PATIENCE_MILLIS;
            while (!loadable(manager) && System.currentTimeMillis() < deadline) {
                Thread.sleep(1_000);
            }
        }

        /** As {@code LogManager} looks for it: the system class loader. */
        private static boolean loadable(String name) {
            try {
                Class.forName(name, false, ClassLoader.getSystemClassLoader());
                return true;
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        }
    }

    /**
     * The server, listening and started; null, said in one ERROR line, when the address cannot be had.
     * Throws for anything else.
     */
    static HttpServer open(MetricsAddress address, MetricsPage page, AgentLogger log) throws IOException {
        InetAddress bind;
        try {
            bind = InetAddress.getByName(address.host());
        } catch (UnknownHostException e) {
            log.error("no metrics endpoint: metrics = {} names an unknown host; the agent governs as ever", address);
            return null;
        }
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(bind, address.port()), 0);
        } catch (BindException e) {
            log.error("no metrics endpoint: {} cannot be listened on ({}: is the port in use?); the agent governs as ever",
                    address, e.getMessage());
            return null;
        }
        server.createContext("/", new Scrapes(page, log));
        server.setExecutor(null); // the dispatcher thread answers: one scrape at a time is all Prometheus sends
        server.start();
        return server;
    }

    /** The start line: INFO on loopback; WARN on any other address, whose figures other machines can read. */
    static void announce(AgentLogger log, InetAddress bound, String url) {
        if (bound.isLoopbackAddress()) {
            log.info("metrics at {}", url);
        } else {
            log.warn("metrics at {}, which is not loopback: every host's figures can be read from other machines", url);
        }
    }

    /** At exit: the port is given back at once, an exchange under way or not. */
    private static final class Stop implements Runnable {
        private final HttpServer server;

        Stop(HttpServer server) {
            this.server = server;
        }

        @Override
        public void run() {
            server.stop(0);
        }
    }

    /** {@code GET /metrics}, in the format the scraper's {@code Accept} prefers; anything else is 404 or 405. */
    static final class Scrapes implements HttpHandler {
        private final MetricsPage page;
        private final AgentLogger log;
        private final AtomicBoolean saidFailure = new AtomicBoolean();

        Scrapes(MetricsPage page, AgentLogger log) {
            this.page = page;
            this.log = log;
        }

        @Override
        public void handle(HttpExchange exchange) throws IOException {
            try {
                String path = exchange.getRequestURI().getPath();
                String method = exchange.getRequestMethod();
                if (!PATH.equals(path) && !(PATH + "/").equals(path)) {
                    plain(exchange, 404, "not found: the metrics are at " + PATH + "\n");
                    return;
                }
                if (!method.equals("GET") && !method.equals("HEAD")) {
                    exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                    plain(exchange, 405, "GET or HEAD\n");
                    return;
                }
                boolean openMetrics = MetricsText.prefersOpenMetrics(exchange.getRequestHeaders().getFirst("Accept"));
                byte[] body;
                try {
                    body = page.render(openMetrics).getBytes(StandardCharsets.UTF_8);
                } catch (RuntimeException | Error e) {
                    if (saidFailure.compareAndSet(false, true)) {
                        log.warn("a scrape of the metrics failed ({}); said once", String.valueOf(e));
                    }
                    plain(exchange, 500, "the agent could not read its figures: " + e + "\n");
                    return;
                }
                exchange.getResponseHeaders().set("Content-Type", openMetrics ? MetricsText.OPEN_METRICS_TYPE : MetricsText.PROMETHEUS_TYPE);
                send(exchange, 200, body, method.equals("HEAD"));
            } finally {
                exchange.close();
            }
        }

        private static void plain(HttpExchange exchange, int status, String text) throws IOException {
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            send(exchange, status, text.getBytes(StandardCharsets.UTF_8), exchange.getRequestMethod().equals("HEAD"));
        }

        private static void send(HttpExchange exchange, int status, byte[] body, boolean head) throws IOException {
            if (head) {
                exchange.sendResponseHeaders(status, -1);
                return;
            }
            exchange.sendResponseHeaders(status, body.length);
            OutputStream out = exchange.getResponseBody();
            out.write(body);
            out.close();
        }
    }
}
