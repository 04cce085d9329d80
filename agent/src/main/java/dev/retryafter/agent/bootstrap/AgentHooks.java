package dev.retryafter.agent.bootstrap;

import jdk.internal.vm.annotation.DontInline;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.LambdaForm$DontInline;
import java.net.URL;

/**
 * What instrumented client code calls. This class is defined by the bootstrap class loader, so
 * every class can see it, {@code java.net.http}'s own included, and it uses {@code java.base}
 * types only. The agent installs the real dispatcher at start-up; until it does, and whenever a
 * method answers null, the instrumented method runs as it always did.
 *
 * <p>Each hook is marked for HotSpot not to inline it (the JDK's own annotation, which it honours
 * on bootstrap classes; Java 8 knows it by its older name). Inlined, the agent's work behind a hook
 * became part of the client method that calls it, and made that method too big to be inlined into
 * its own callers: Apache 5's connection release and acquisition among them, which cost the client
 * more than the agent's work itself. A call costs a few nanoseconds.
 */
public final class AgentHooks {

    /** The agent's side, implemented in the agent's own class loader. */
    public interface Dispatcher {

        /**
         * A client module's own hook ({@code "apache5async.execute"}), its arguments as its advice hands them: the
         * module's answer, or null for the client's own method to run as it always did.
         */
        Object module(String hook, Object[] args);

        /** {@code HttpClient.send}: the final response, or null to run the original method. */
        Object jdkSend(Object client, Object request, Object bodyHandler) throws IOException, InterruptedException;

        /** {@code HttpClient.sendAsync}: a future of the final response, or null to run the original. */
        Object jdkSendAsync(Object client, Object request, Object bodyHandler, Object pushPromiseHandler);

        /** Apache {@code doExecute} begins: a call to pass back below once the turn is granted, or null when not governed. */
        Object begin(String scheme, String host, int port, boolean replayable) throws IOException;

        /**
         * Whether the attempt's response headers are worth offering ({@link #header}) before {@link #shouldRetry}:
         * on refusals, on a host's first few responses, and on every response of a host whose rate-limit hints are believed.
         */
        boolean wantsHeaders(Object call, int status);

        /** One header of the attempt's response, offered before {@link #shouldRetry}: the agent keeps only rate-limit hints. */
        void header(Object call, String name, String value);

        /** The attempt's response: true when the caller must discard it and send again. */
        boolean shouldRetry(Object call, int status, String retryAfter);

        /** Waits for the next attempt's turn, after the refused response went back to the pool. */
        void awaitRetry(Object call) throws IOException;

        /** The attempt threw: the call is over. */
        void failed(Object call);

        /**
         * A refused response, before the retry, then the wait for the next attempt's turn: {@code body} (null for none)
         * read within a small bound, or aborted with the stream's own no-argument method {@code abortMethod}, which
         * closes its connection; then {@code refused} closed, so its connection goes back to the pool (a pool of one
         * would otherwise deadlock). The blocking clients' advice ends each refused attempt with this one call.
         */
        void resend(Object call, Closeable refused, InputStream body, String abortMethod) throws IOException;

        /**
         * A refused Commons HttpClient 3 method's body, {@code body} its response stream (null for none), before the
         * retry: read within the same bound, or its connection closed, so that the method can be released and run again.
         */
        void commonsHttp3DiscardRefused(Object method, InputStream body);

        /** Apache's per-exchange connection holder took a pooled connection, on the thread sending the request. */
        void connectionAcquired(Object holder);

        /** That holder gave its connection back: released, discarded or aborted, on any thread. */
        void connectionReleased(Object holder);

        /** Wraps an Apache retry strategy so status retries the agent governs are the agent's alone. */
        Object guardRetryStrategy(Object strategy, Class<?> strategyType);

        /** {@code HttpURLConnection} is about to connect: waits for the first attempt's turn, once per exchange. */
        void urlConnectionConnect(Object connection, URL url, boolean replayable) throws IOException;

        /** A final response inside the JDK's own loop, {@code body} its stream as yet unread: true when the agent will send it again. */
        boolean urlConnectionRefused(Object connection, Object httpClient, InputStream body, URL url, int status, String retryAfter);

        /** The JDK's loop follows a redirect to {@code url}: to another host, the exchange becomes that host's, and waits for its turn. */
        void urlConnectionRedirected(Object connection, URL url) throws IOException;

        /** The refused response went back to the keep-alive cache or was closed: waits for the next turn. */
        void urlConnectionAwaitRetry(Object connection) throws IOException;

        /** A connection (disconnect) or the JDK's own client for it (finished, closed): the exchange is over. */
        void urlConnectionDone(Object connectionOrClient);

        /** OkHttp's {@code RetryAndFollowUpInterceptor} begins: as {@link #begin}, or the async call whose turn came. */
        Object okhttpBegin(Object okCall, String scheme, String host, int port, boolean replayable) throws IOException;



        /** A status this thread's governed call retries itself: the client's own retry of it must not run beneath. */
        boolean isGovernedRefusal(int status);



        /**
         * As {@link #isGovernedRefusal(int)}, or, off the thread of any governed call, for {@code asyncCall}: the
         * {@link #GOVERNED_CALL} attribute of an asynchronous exchange's context (null for none).
         */
        boolean isGovernedRefusal(int status, Object asyncCall);




    }

    /**
     * The attribute of an asynchronous exchange's context that holds its governed call: a retry strategy asked
     * about its response on an I/O thread, where no governed call is this thread's, finds it there.
     */
    public static final String GOVERNED_CALL = "dev.retryafter.agent.call";

    /**
     * No status below this is a refusal: a policy names 4xx and 5xx statuses only. Advice reads a
     * response's {@code Retry-After} only from here up; a success's header is never looked for.
     */
    public static final int LOWEST_REFUSAL = 400;

    private static volatile Dispatcher dispatcher;

    private AgentHooks() {
    }

    public static void install(Dispatcher installed) {
        dispatcher = installed;
    }

    /** See {@link Dispatcher#module}: the one entry of every client's own steps, where no step of the five fits. */
    @DontInline @LambdaForm$DontInline
    public static Object module(String hook, Object[] args) {
        Dispatcher d = dispatcher;
        return d == null ? null : d.module(hook, args);
    }

    @DontInline @LambdaForm$DontInline
    public static Object jdkSend(Object client, Object request, Object bodyHandler) throws IOException, InterruptedException {
        Dispatcher d = dispatcher;
        return d == null ? null : d.jdkSend(client, request, bodyHandler);
    }

    @DontInline @LambdaForm$DontInline
    public static Object jdkSendAsync(Object client, Object request, Object bodyHandler, Object pushPromiseHandler) {
        Dispatcher d = dispatcher;
        return d == null ? null : d.jdkSendAsync(client, request, bodyHandler, pushPromiseHandler);
    }

    @DontInline @LambdaForm$DontInline
    public static Object begin(String scheme, String host, int port, boolean replayable) throws IOException {
        Dispatcher d = dispatcher;
        return d == null ? null : d.begin(scheme, host, port, replayable);
    }

    // The five below run for a call that began while the agent was on; it may have gone off since
    // (a failed start rolls back): then the call ends as the client alone would end it.

    @DontInline @LambdaForm$DontInline
    public static boolean wantsHeaders(Object call, int status) {
        Dispatcher d = dispatcher;
        return d != null && d.wantsHeaders(call, status);
    }

    @DontInline @LambdaForm$DontInline
    public static void header(Object call, String name, String value) {
        Dispatcher d = dispatcher;
        if (d != null) {
            d.header(call, name, value);
        }
    }

    @DontInline @LambdaForm$DontInline
    public static boolean shouldRetry(Object call, int status, String retryAfter) {
        Dispatcher d = dispatcher;
        return d != null && d.shouldRetry(call, status, retryAfter);
    }

    @DontInline @LambdaForm$DontInline
    public static void awaitRetry(Object call) throws IOException {
        Dispatcher d = dispatcher;
        if (d != null) {
            d.awaitRetry(call);
        }
    }

    @DontInline @LambdaForm$DontInline
    public static void failed(Object call) {
        Dispatcher d = dispatcher;
        if (d != null) {
            d.failed(call);
        }
    }

    @DontInline @LambdaForm$DontInline
    public static void resend(Object call, Closeable refused, InputStream body, String abortMethod) throws IOException {
        Dispatcher d = dispatcher;
        if (d != null) {
            d.resend(call, refused, body, abortMethod);
        }
    }

    @DontInline @LambdaForm$DontInline
    public static void commonsHttp3DiscardRefused(Object method, InputStream body) {
        Dispatcher d = dispatcher;
        if (d != null) {
            d.commonsHttp3DiscardRefused(method, body);
        }
    }

    @DontInline @LambdaForm$DontInline
    public static void connectionAcquired(Object holder) {
        Dispatcher d = dispatcher;
        if (d != null) {
            d.connectionAcquired(holder);
        }
    }

    @DontInline @LambdaForm$DontInline
    public static void connectionReleased(Object holder) {
        Dispatcher d = dispatcher;
        if (d != null) {
            d.connectionReleased(holder);
        }
    }

    @DontInline @LambdaForm$DontInline
    public static Object guardRetryStrategy(Object strategy, Class<?> strategyType) {
        Dispatcher d = dispatcher;
        return d == null || strategy == null ? strategy : d.guardRetryStrategy(strategy, strategyType);
    }

    @DontInline @LambdaForm$DontInline
    public static void urlConnectionConnect(Object connection, URL url, boolean replayable) throws IOException {
        Dispatcher d = dispatcher;
        if (d != null) {
            d.urlConnectionConnect(connection, url, replayable);
        }
    }

    @DontInline @LambdaForm$DontInline
    public static boolean urlConnectionRefused(Object connection, Object httpClient, InputStream body, URL url, int status,
                                               String retryAfter) {
        Dispatcher d = dispatcher;
        return d != null && d.urlConnectionRefused(connection, httpClient, body, url, status, retryAfter);
    }

    @DontInline @LambdaForm$DontInline
    public static void urlConnectionRedirected(Object connection, URL url) throws IOException {
        Dispatcher d = dispatcher;
        if (d != null) {
            d.urlConnectionRedirected(connection, url);
        }
    }

    @DontInline @LambdaForm$DontInline
    public static void urlConnectionAwaitRetry(Object connection) throws IOException {
        Dispatcher d = dispatcher;
        if (d != null) {
            d.urlConnectionAwaitRetry(connection);
        }
    }

    @DontInline @LambdaForm$DontInline
    public static void urlConnectionDone(Object connectionOrClient) {
        Dispatcher d = dispatcher;
        if (d != null) {
            d.urlConnectionDone(connectionOrClient);
        }
    }

    @DontInline @LambdaForm$DontInline
    public static Object okhttpBegin(Object okCall, String scheme, String host, int port, boolean replayable) throws IOException {
        Dispatcher d = dispatcher;
        return d == null ? null : d.okhttpBegin(okCall, scheme, host, port, replayable);
    }

    @DontInline @LambdaForm$DontInline
    public static boolean isGovernedRefusal(int status) {
        Dispatcher d = dispatcher;
        return d != null && d.isGovernedRefusal(status);
    }

    @DontInline @LambdaForm$DontInline
    public static boolean isGovernedRefusal(int status, Object asyncCall) {
        Dispatcher d = dispatcher;
        return d != null && d.isGovernedRefusal(status, asyncCall);
    }
}
