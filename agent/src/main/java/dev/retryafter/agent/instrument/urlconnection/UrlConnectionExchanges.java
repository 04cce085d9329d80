package dev.retryafter.agent.instrument.urlconnection;

import dev.retryafter.agent.AgentLog;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.DaemonThreads;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.Endpoint;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.ref.WeakReference;
import java.net.URL;
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
 * client for the connection, until that client is finished (the body read to its end or closed,
 * the error body buffered) or closed (disconnect), or, when the application does none of these,
 * for at most {@link #UNFINISHED_BOUND_MILLIS} after the exchange last moved.
 */
public final class UrlConnectionExchanges {

    /** How long a permit outlives an exchange the application leaves open: a cap never shrinks for good. */
    public static final long UNFINISHED_BOUND_MILLIS = 30_000;

    private final RetryEngine engine;
    private final CallDepth depth;
    /** By connection and, once answered, by the JDK's client for it too. Weak keys: an abandoned connection goes. */
    private final Map<Object, Exchange> exchanges = Collections.synchronizedMap(new WeakHashMap<Object, Exchange>());
    private volatile ScheduledThreadPoolExecutor bounds;

    public UrlConnectionExchanges(RetryEngine engine, CallDepth depth) {
        this.engine = engine;
        this.depth = depth;
    }

    /** Before the connection is made: the first attempt's turn. A reconnect inside the JDK's loop waits for nothing. */
    public void connect(Object connection, URL url, boolean replayable) throws IOException {
        if (connection == null || url == null || depth.isInside() || exchanges.containsKey(connection)) {
            return;
        }
        String host = url.getHost();
        if (host == null || host.isEmpty()) {
            return;
        }
        Call call;
        try {
            call = engine.open(Endpoint.host(host), Endpoint.port(url.getProtocol(), url.getPort()), replayable);
        } catch (RuntimeException e) {
            AgentLog.failure("opening an HttpURLConnection call", e);
            return;
        }
        Exchange exchange = new Exchange(call, connection, url, replayable);
        awaitTurn(call);
        exchanges.put(connection, exchange);
        exchange.bound();
    }

    /** The response the JDK settled on: true when it is a refusal to discard and send again. */
    public boolean refused(Object connection, Object httpClient, URL url, int status, String retryAfter) {
        Exchange exchange = connection == null ? null : exchanges.get(connection);
        if (exchange == null) {
            return false;
        }
        boolean retry = false;
        if (exchange.isFor(url)) { // a redirect to another host is that host's answer, not this one's
            try {
                retry = exchange.call.onResponse(status, retryAfter);
            } catch (RuntimeException e) {
                AgentLog.failure("deciding on an HttpURLConnection response", e);
            }
        }
        if (retry) {
            exchange.call.endAttempt();
            return true;
        }
        if (httpClient == null) {
            done(connection);
        } else {
            exchange.client = new WeakReference<Object>(httpClient);
            exchanges.put(httpClient, exchange);
            exchange.bound();
        }
        return false;
    }

    /**
     * The JDK followed a redirect, and has connected to where it leads but not yet written the request.
     * To another host, the exchange becomes that host's: the old call is over (its 3xx was the answer),
     * and the new one waits for its turn.
     */
    public void redirected(Object connection, URL url) throws IOException {
        Exchange exchange = connection == null || url == null ? null : exchanges.get(connection);
        if (exchange == null || exchange.isFor(url) || url.getHost() == null || url.getHost().isEmpty()) {
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
        try {
            awaitTurn(next);
        } catch (IOException e) {
            done(connection);
            throw e;
        }
        exchange.bound();
    }

    public void awaitRetry(Object connection) throws IOException {
        Exchange exchange = exchanges.get(connection);
        if (exchange == null) {
            return;
        }
        try {
            awaitTurn(exchange.call);
        } catch (IOException e) {
            done(connection);
            throw e;
        }
        exchange.bound();
    }

    /** The exchange of this connection, or of the exchange this client served, is over: its permit goes back. */
    public void done(Object connectionOrClient) {
        if (connectionOrClient == null) {
            return;
        }
        Exchange exchange = exchanges.remove(connectionOrClient);
        if (exchange != null) {
            exchange.finish();
        }
    }

    private void awaitTurn(Call call) throws IOException {
        try {
            call.awaitTurn();
        } catch (HostHeldException e) {
            throw e;
        } catch (InterruptedException e) {
            InterruptedIOException interrupted = new InterruptedIOException("interrupted while waiting out a refusal from " + call.host().key());
            interrupted.initCause(e);
            throw interrupted; // the engine kept the interrupt flag set
        } catch (RuntimeException e) {
            AgentLog.failure("waiting for an HttpURLConnection turn", e);
        }
    }

    private static int portOf(URL url) {
        return url.getPort() > 0 ? url.getPort() : url.getDefaultPort();
    }

    private ScheduledThreadPoolExecutor bounds() {
        ScheduledThreadPoolExecutor b = bounds;
        if (b == null) {
            synchronized (this) {
                if (bounds == null) {
                    ScheduledThreadPoolExecutor created = new ScheduledThreadPoolExecutor(1, new DaemonThreads("retry-after-agent-urlconnection"));
                    created.setRemoveOnCancelPolicy(true);
                    bounds = created;
                }
                b = bounds;
            }
        }
        return b;
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

        Exchange(Call call, Object connection, URL url, boolean replayable) {
            this.call = call;
            this.connection = new WeakReference<>(connection);
            this.replayable = replayable;
            this.host = url.getHost();
            this.port = portOf(url);
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
                bound = bounds().schedule(new Runnable() { // not a lambda: a first request comes this way (see AgentInstaller)
                    @Override
                    public void run() {
                        current.endAttempt();
                    }
                }, UNFINISHED_BOUND_MILLIS, TimeUnit.MILLISECONDS);
            } catch (RuntimeException e) {
                AgentLog.failure("bounding an HttpURLConnection permit", e);
            }
        }

        void finish() {
            synchronized (this) {
                if (bound != null) {
                    bound.cancel(false);
                    bound = null;
                }
            }
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
