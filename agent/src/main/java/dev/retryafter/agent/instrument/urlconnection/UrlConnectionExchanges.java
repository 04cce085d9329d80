package dev.retryafter.agent.instrument.urlconnection;

import dev.retryafter.agent.report.Turns;
import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.DaemonThreads;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.instrument.BlockingClient;
import dev.retryafter.agent.instrument.BlockingRetryLoop;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.Endpoint;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.lang.ref.WeakReference;
import java.net.HttpURLConnection;
import java.net.SocketException;
import java.net.URL;
import java.net.URLConnection;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * {@code HttpURLConnection} exchanges, governed. An exchange spans several calls the application
 * makes on one connection ({@code connect}, {@code getOutputStream}, {@code getInputStream}, ...),
 * so it is kept by connection, weakly, rather than on the thread. The first connect waits for the
 * turn; each response the JDK's own loop settles on is decided; a refusal is sent again inside that
 * loop, as the JDK re-sends a redirect. The final response's permit is kept, under the JDK's own
 * client for the connection, until its body has all arrived (read or not: the request is no longer
 * in flight at the portal), or that client is finished (the body read to its end or closed, the error
 * body buffered, no body) or closed (disconnect), or, for a body still streaming that the application
 * leaves, for at most {@link #UNFINISHED_BOUND_MILLIS} after the exchange last moved.
 *
 * <p>Behind the blocking clients' calls: {@code begin} at the connect, {@code respond} for the response the JDK settled
 * on (with the JDK's client and the body's stream, both handed over as they are: no array), {@code await} after its
 * advice readied a refusal to go again (the JDK's fields it resets only inlined advice can reach; the refused body is
 * closed here), or after a redirect the JDK followed, and {@code end} when the connection or the JDK's client for it is
 * done. The calls are kept by connection, so the advice hands the connection over as its call.
 */
public final class UrlConnectionExchanges extends BlockingClient {

    /** How long a permit outlives an exchange the application leaves open: a cap never shrinks for good. */
    public static final long UNFINISHED_BOUND_MILLIS = 30_000;
    /** A body that had not all arrived with its headers is looked at again this soon, then twice as late each time, up to a second. */
    private static final long FIRST_ARRIVAL_PROBE_MILLIS = 5;
    private static final long LAST_ARRIVAL_PROBE_MILLIS = 1_000;

    private final RetryEngine engine;
    private final CallDepth depth;
    /** By connection and, once answered, by the JDK's client for it too. Weak keys: an abandoned connection goes. */
    private final Map<Object, Exchange> exchanges = Collections.synchronizedMap(new WeakHashMap<Object, Exchange>());
    private final LazyScheduler bounds = new LazyScheduler("retry-after-agent-urlconnection");
    /**
     * Apart from the bounds: a look at a body takes the lock of its stream, which an application
     * thread reading it holds while it waits for the portal, and a bound must never wait for that.
     */
    private final LazyScheduler arrivalProbes = new LazyScheduler("retry-after-agent-urlconnection-arrival");

    public UrlConnectionExchanges(RetryEngine engine, CallDepth depth) {
        super("urlconnection", null, "getHeaderField", new String[0], null); // its own respond reads the connection
        this.engine = engine;
        this.depth = depth;
    }

    /** Before the connection is made: the first attempt's turn. A reconnect inside the JDK's loop waits for nothing. */
    @Override
    public Call begin(BlockingRetryLoop loop, Object connection, String scheme, String host, int port, boolean replayable,
                      boolean governNew) throws IOException {
        if (!governNew || connection == null || depth.isInside() || exchanges.containsKey(connection)) {
            return null; // not bound to an exchange: the JDK's loop runs it alone, to the end
        }
        URL url = ((URLConnection) connection).getURL();
        scheme = url.getProtocol();
        host = url.getHost();
        port = url.getPort();
        if (host == null || host.isEmpty()) {
            return null;
        }
        Call call;
        try {
            call = engine.open(Endpoint.host(host), Endpoint.port(scheme, port), replayable);
        } catch (RuntimeException e) {
            AgentLog.failure("opening an HttpURLConnection call", e);
            return null;
        }
        Exchange exchange = new Exchange(call, connection, host, Endpoint.port(scheme, port), replayable);
        awaitTurn(call, exchange);
        exchanges.put(connection, exchange);
        exchange.bound();
        return call;
    }

    /**
     * The response the JDK settled on ({@code response}: the JDK's client for the connection; {@code body}: its stream, as
     * yet unread): true when it is a refusal to send again; the advice readies the request as for a redirect, then
     * {@link #await}s, which closes the refused body first.
     */
    @Override
    public boolean respond(BlockingRetryLoop loop, Object connection, Object response, Object body, int status, Throwable thrown) {
        Exchange exchange = connection == null ? null : exchanges.get(connection);
        if (exchange == null) {
            return false;
        }
        URLConnection answered = (URLConnection) connection;
        boolean retry = false;
        if (exchange.isFor(answered.getURL())) { // a redirect to another host is that host's answer, not this one's
            try {
                if (exchange.call.wantsHeaders(status)) {
                    offerHeaders(exchange.call, connection);
                }
                String retryAfter = status >= AgentHooks.LOWEST_REFUSAL ? answered.getHeaderField("Retry-After") : null;
                retry = exchange.call.onResponse(status, retryAfter);
            } catch (RuntimeException e) {
                AgentLog.failure("deciding on an HttpURLConnection response", e);
            }
        }
        if (retry) {
            exchange.unbound(); // the wait for the next turn is the agent's, not an exchange left unfinished
            exchange.call.endAttempt();
            exchange.refused = (InputStream) body;
            exchange.resending = true;
            return true;
        }
        Object httpClient = response;
        if (httpClient == null) {
            done(connection);
        } else {
            exchange.client = new WeakReference<Object>(httpClient);
            exchanges.put(httpClient, exchange);
            exchange.bound();
            awaitArrival(exchange, connection, status, (InputStream) body);
        }
        return false;
    }

    /**
     * The response's headers, for its rate-limit hints. Inside the JDK's loop in {@code getInputStream},
     * as {@code Retry-After} is read: the connection has its response, and reading a header field
     * returns it, without connecting or reading anything more. Field 0 is the status line, which has no key.
     */
    private static void offerHeaders(Call call, Object connection) {
        if (!(connection instanceof HttpURLConnection)) {
            return;
        }
        HttpURLConnection http = (HttpURLConnection) connection;
        for (int i = 0; ; i++) {
            String name = http.getHeaderFieldKey(i);
            if (name == null) {
                if (i == 0) {
                    continue;
                }
                return;
            }
            call.offerHeader(name, http.getHeaderField(i));
        }
    }

    /** Ends the exchange once its body has all arrived: now, or when a later look finds it has. */
    private void awaitArrival(Exchange exchange, Object connection, int status, InputStream body) {
        ArrivedBody arriving;
        boolean arrived;
        try {
            arriving = ArrivedBody.of(connection, status, body);
            arrived = arriving != null && arriving.arrived();
        } catch (RuntimeException e) {
            AgentLog.failure("watching for an HttpURLConnection body", e); // its bound still ends it
            return;
        }
        if (arrived) {
            exchange.finish();
        } else if (arriving != null) {
            new ArrivalProbe(exchange, arriving).schedule();
        }
    }

    /** After the advice discarded a refusal, the next attempt's turn; after a redirect the JDK followed, see {@link #redirected}. */
    @Override
    public void await(Object connection) throws IOException {
        Exchange exchange = connection == null ? null : exchanges.get(connection);
        if (exchange == null) {
            return;
        }
        if (exchange.resending) {
            try {
                closeRefused(exchange);
                awaitSending(connection, exchange, exchange.call);
            } finally {
                exchange.resending = false;
            }
        } else {
            redirected(connection, exchange, ((URLConnection) connection).getURL());
        }
    }

    /**
     * The JDK followed a redirect, and has connected to where it leads but not yet written the request.
     * To another host, the exchange becomes that host's: the old call is over (its 3xx was the answer),
     * and the new one waits for its turn.
     */
    private void redirected(Object connection, Exchange exchange, URL url) throws IOException {
        if (url == null || exchange.isFor(url) || url.getHost() == null || url.getHost().isEmpty()) {
            return;
        }
        Call next;
        try {
            next = engine.open(Endpoint.host(url.getHost()), Endpoint.port(url.getProtocol(), url.getPort()), exchange.replayable);
        } catch (RuntimeException e) {
            AgentLog.failure("opening an HttpURLConnection call", e);
            return;
        }
        exchange.call.endAttempt();
        exchange.moveTo(next, url);
        awaitSending(connection, exchange, next);
    }

    /**
     * The refused body, its fields already reset by the advice: the JDK skips what has arrived and returns the connection
     * to its keep-alive cache, hands the rest to its own cleaner thread (up to {@code http.KeepAlive.remainingData},
     * 512 KB), or closes the connection; it never blocks here.
     */
    private static void closeRefused(Exchange exchange) {
        InputStream refused = exchange.refused;
        exchange.refused = null;
        if (refused != null) {
            try {
                refused.close();
            } catch (IOException discarded) {
                // the JDK closed the connection instead of keeping it
            }
        }
    }

    /**
     * Waits for the turn of {@code call}, the exchange's next attempt (a retry, or a redirect to another host); a
     * disconnect meanwhile ends the exchange, and the request fails as a read the disconnect cut short.
     */
    private void awaitSending(Object connection, Exchange exchange, Call call) throws IOException {
        exchange.waiting = true;
        try {
            awaitTurn(call, exchange);
        } catch (IOException e) {
            done(connection);
            throw e;
        } finally {
            exchange.waiting = false;
        }
        if (exchange.disconnected) {
            done(connection);
            throw new SocketException("Socket closed: disconnected while waiting for a turn at " + call.host().key());
        }
        exchange.bound();
    }

    /**
     * The exchange of this connection, or of the exchange this client served, is over: its permit goes back. A
     * connection the application disconnects (often a watchdog's hard timeout) while the agent waits to send its request
     * again is not sent again: the wait ends, and the request fails as a read the disconnect cut short does.
     */
    @Override
    public void end(Object connectionOrClient) {
        Exchange exchange = connectionOrClient instanceof HttpURLConnection ? exchanges.get(connectionOrClient) : null;
        if (exchange != null && (exchange.waiting || exchange.resending)) {
            exchange.disconnected = true;
            exchange.call.abandon(); // its wait ends, or does not begin; the waiting thread ends the exchange
            return;
        }
        done(connectionOrClient);
    }

    private void done(Object connectionOrClient) {
        if (connectionOrClient == null) {
            return;
        }
        Exchange exchange = exchanges.remove(connectionOrClient);
        if (exchange != null) {
            exchange.finish();
        }
    }

    private void awaitTurn(Call call, Exchange exchange) throws IOException {
        try {
            Turns.await(call);
        } catch (HostHeldException e) {
            throw e;
        } catch (InterruptedException e) {
            InterruptedIOException interrupted = new InterruptedIOException("interrupted while waiting out a refusal from " + call.host().key());
            interrupted.initCause(e);
            throw interrupted; // the engine kept the interrupt flag set
        } catch (RuntimeException e) {
            if (!exchange.disconnected || !call.abandoned()) { // a disconnect's cancel is the application's, and fails the request above
                AgentLog.failure("waiting for an HttpURLConnection turn", e);
            }
        }
    }

    private static int portOf(URL url) {
        return Endpoint.port(url.getProtocol(), url.getPort());
    }

    /** One daemon thread, made at its first use: most JVMs never use {@code HttpURLConnection}. */
    private static final class LazyScheduler {
        private final String threadName;
        private volatile ScheduledThreadPoolExecutor executor;

        LazyScheduler(String threadName) {
            this.threadName = threadName;
        }

        ScheduledThreadPoolExecutor get() {
            ScheduledThreadPoolExecutor e = executor;
            if (e == null) {
                synchronized (this) {
                    if (executor == null) {
                        ScheduledThreadPoolExecutor created = new ScheduledThreadPoolExecutor(1, new DaemonThreads(threadName));
                        created.setRemoveOnCancelPolicy(true);
                        executor = created;
                    }
                    e = executor;
                }
            }
            return e;
        }
    }

    /** Looks at a body again, sooner first, until it has arrived, its exchange is over or the exchange's bound has passed. */
    private final class ArrivalProbe implements Runnable { // not a lambda: see Exchange.bound
        private final Exchange exchange;
        private final ArrivedBody body;
        private final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(UNFINISHED_BOUND_MILLIS);
        private long delayMillis = FIRST_ARRIVAL_PROBE_MILLIS;

        ArrivalProbe(Exchange exchange, ArrivedBody body) {
            this.exchange = exchange;
            this.body = body;
        }

        void schedule() {
            try {
                arrivalProbes.get().schedule(this, delayMillis, TimeUnit.MILLISECONDS);
            } catch (RuntimeException e) {
                AgentLog.failure("watching for an HttpURLConnection body", e); // its bound still ends it
            }
        }

        @Override
        public void run() {
            if (exchange.over || System.nanoTime() - deadline >= 0) {
                return;
            }
            try {
                if (body.arrived()) {
                    exchange.finish();
                    return;
                }
            } catch (RuntimeException e) {
                AgentLog.failure("watching for an HttpURLConnection body", e); // its bound still ends it
                return;
            }
            delayMillis = Math.min(2 * delayMillis, LAST_ARRIVAL_PROBE_MILLIS);
            schedule();
        }
    }

    /** One application request on one connection. Holds its keys weakly: they are the map's keys. */
    private final class Exchange {
        volatile Call call;
        final WeakReference<Object> connection;
        final boolean replayable;
        volatile WeakReference<Object> client;
        private volatile String host;
        private volatile int port;
        private ScheduledFuture<?> bound;
        /** Finished: nothing need look at its body any more. */
        volatile boolean over;
        /** A refusal to send again: its advice readies the request, then awaits the next turn, which closes its body first. */
        volatile boolean resending;
        /** That refusal's body, until then. */
        volatile InputStream refused;
        /** Waiting for the turn of its next attempt (a retry, a redirect to another host): a disconnect then ends the wait. */
        volatile boolean waiting;
        /** Disconnected by the application in that wait: the request is not sent again. */
        volatile boolean disconnected;

        Exchange(Call call, Object connection, String host, int port, boolean replayable) {
            this.call = call;
            this.connection = new WeakReference<>(connection);
            this.replayable = replayable;
            this.host = host;
            this.port = port;
        }

        boolean isFor(URL url) {
            return host.equalsIgnoreCase(url.getHost()) && port == portOf(url);
        }

        /** A redirect to another host: the same exchange, that host's call. */
        synchronized void moveTo(Call next, URL url) {
            call = next;
            host = url.getHost();
            port = portOf(url);
        }

        /** Restarts the clock on the permit: the application has this long to move the exchange on. */
        synchronized void bound() {
            if (bound != null) {
                bound.cancel(false);
            }
            final Call current = call;
            try {
                bound = bounds.get().schedule(new Runnable() { // not a lambda: a first request comes this way (see AgentInstaller)
                    @Override
                    public void run() {
                        current.endAttempt();
                    }
                }, UNFINISHED_BOUND_MILLIS, TimeUnit.MILLISECONDS);
            } catch (RuntimeException e) {
                AgentLog.failure("bounding an HttpURLConnection permit", e);
            }
        }

        /** The attempt ended, and no bound runs until the next one's turn has come. */
        synchronized void unbound() {
            if (bound != null) {
                bound.cancel(false);
                bound = null;
            }
        }

        void finish() {
            over = true;
            unbound();
            call.endAttempt();
            Object c = connection.get();
            if (c != null) {
                exchanges.remove(c, this);
            }
            WeakReference<Object> served = client;
            Object s = served == null ? null : served.get();
            if (s != null) {
                exchanges.remove(s, this); // by now the client may serve another connection's exchange
            }
        }
    }
}
