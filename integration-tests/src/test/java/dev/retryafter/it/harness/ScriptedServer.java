package dev.retryafter.it.harness;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/** A loopback server that answers the n-th request (from 0) as its script says, and keeps what it received. */
public final class ScriptedServer implements AutoCloseable {

    /** A status, a Retry-After (null for none), and a body size. */
    public static final class Reply {
        final int status;
        final String retryAfter;
        final int bodyBytes;
        final String location;

        public Reply(int status, String retryAfter, int bodyBytes) {
            this(status, retryAfter, bodyBytes, null);
        }

        private Reply(int status, String retryAfter, int bodyBytes, String location) {
            this.status = status;
            this.retryAfter = retryAfter;
            this.bodyBytes = bodyBytes;
            this.location = location;
        }

        public static Reply ok() {
            return new Reply(200, null, 16);
        }

        public static Reply refused(String retryAfter) {
            return new Reply(429, retryAfter, 64);
        }

        /** A 302 to {@code location}. */
        public static Reply redirect(String location) {
            return new Reply(302, null, 0, location);
        }

        /** No response at all: the connection is closed, as a crashed or overloaded server does. */
        public static Reply hangUp() {
            return new Reply(-1, null, 0);
        }
    }

    private final HttpServer server;
    private final AtomicInteger requests = new AtomicInteger();
    public final List<String> bodies = new CopyOnWriteArrayList<>();
    /** When each request arrived ({@code System.nanoTime()}), and from which client port: a reused connection repeats one. */
    public final List<Long> arrivals = new CopyOnWriteArrayList<>();
    public final List<Integer> clientPorts = new CopyOnWriteArrayList<>();

    public ScriptedServer(IntFunction<Reply> script) throws IOException {
        this(script, null);
    }

    /** Over TLS where {@code tls} is given (its key the server's certificate), else plain HTTP. */
    public ScriptedServer(IntFunction<Reply> script, javax.net.ssl.SSLContext tls) throws IOException {
        // An HttpServer never started keeps its socket through stop(): started first, the port is given back.
        server = FreshPorts.bind(() -> bound(tls), bound -> bound.getAddress().getPort(), unused -> {
            unused.start();
            unused.stop(0);
        });
        server.setExecutor(Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "scripted-server");
            thread.setDaemon(true);
            return thread;
        }));
        server.createContext("/", exchange -> {
            bodies.add(new String(exchange.getRequestBody().readAllBytes()));
            arrivals.add(System.nanoTime());
            clientPorts.add(exchange.getRemoteAddress().getPort());
            Reply reply = script.apply(requests.getAndIncrement());
            if (reply.status < 0) {
                exchange.close();
                return;
            }
            if (reply.retryAfter != null) {
                exchange.getResponseHeaders().set("Retry-After", reply.retryAfter);
            }
            if (reply.location != null) {
                exchange.getResponseHeaders().set("Location", reply.location);
            }
            exchange.sendResponseHeaders(reply.status, reply.location != null ? -1 : reply.bodyBytes);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(new byte[reply.bodyBytes]);
            }
        });
        server.start();
    }

    private static HttpServer bound(javax.net.ssl.SSLContext tls) throws IOException {
        InetSocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        if (tls == null) {
            return HttpServer.create(loopback, 16);
        }
        com.sun.net.httpserver.HttpsServer https = com.sun.net.httpserver.HttpsServer.create(loopback, 16);
        https.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(tls));
        return https;
    }

    public String url(String path) {
        String scheme = server instanceof com.sun.net.httpserver.HttpsServer ? "https" : "http";
        return scheme + "://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public int requests() {
        return requests.get();
    }

    /** Until {@code count} requests have arrived; fails if they have not within {@code patience}. */
    public void awaitRequests(int count, java.time.Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (requests.get() < count) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(count + " requests expected within " + patience + "; " + requests.get() + " arrived");
            }
            Thread.sleep(5);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
