package dev.retryafter.agent.bootstrap;

import jdk.internal.vm.annotation.DontInline;

import java.io.IOException;
import java.lang.invoke.LambdaForm$DontInline;

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

        /**
         * A blocking client's call begins ({@code client}: its module's name, {@code "apache5"}; {@code exchange}: the
         * client's own object for the call, or null): the call to pass back at each {@link #respond}, once the first
         * attempt's turn has come, or null when not governed.
         */
        Object begin(String client, Object exchange, String scheme, String host, int port, boolean replayable) throws IOException;

        /**
         * An attempt of that call ended: {@code response} as the client has it (null, and {@code thrown}, when it failed)
         * and its status; {@code body}, the response's body where only the advice can reach it ({@code HttpURLConnection}'s
         * stream), else null. True when it was a refusal the agent discarded and the next attempt's turn has come: the
         * advice sends the request again (for a client whose advice must discard it itself, it readies the request, then
         * calls {@link #await}). The one exit of every blocking client's advice.
         */
        boolean respond(String client, Object call, Object response, Object body, int status, Throwable thrown) throws IOException;

        /**
         * A blocking client whose advice discards a refusal itself, or whose client moves a call on by itself (a redirect
         * {@code HttpURLConnection} follows to another host): the next attempt waits for its turn.
         */
        void await(String client, Object call) throws IOException;

        /**
         * A client whose exchange outlives the advised method ({@code HttpURLConnection}'s spans several calls) says it
         * is over ({@code exchange}: any object its module keeps it by): its permit goes back.
         */
        void end(String client, Object exchange);

        /**
         * A client's per-exchange holder of a pooled connection (Apache's, Commons HttpClient 3's) took one, on the thread
         * sending the request: a governed attempt keeps its permit until the holder gives it back.
         */
        void connectionAcquired(Object holder);

        /** That holder gave its connection back: released, discarded or aborted, on any thread. */
        void connectionReleased(Object holder);
    }

    /**
     * The attribute of an asynchronous exchange's context that holds its governed call: a retry strategy asked
     * about its response on an I/O thread, where no governed call is this thread's, finds it there.
     */
    public static final String GOVERNED_CALL = "dev.retryafter.agent.call";

    /**
     * No status below this is a refusal: a policy names 4xx and 5xx statuses only. A response's
     * {@code Retry-After} is read only from here up; a success's header is never looked for.
     */
    public static final int LOWEST_REFUSAL = 400;

    private static volatile Dispatcher dispatcher;

    private AgentHooks() {
    }

    public static void install(Dispatcher installed) {
        dispatcher = installed;
    }

    /** See {@link Dispatcher#module}: the one entry of every client's own steps, where no generic step fits. */
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
    public static Object begin(String client, Object exchange, String scheme, String host, int port, boolean replayable)
            throws IOException {
        Dispatcher d = dispatcher;
        return d == null ? null : d.begin(client, exchange, scheme, host, port, replayable);
    }

    /** For a call that began while the agent was on; gone off since (a failed start rolls back), the response is the client's. */
    @DontInline @LambdaForm$DontInline
    public static boolean respond(String client, Object call, Object response, int status, Throwable thrown) throws IOException {
        Dispatcher d = dispatcher;
        return d != null && d.respond(client, call, response, null, status, thrown);
    }

    /** {@link #respond} with the body only the advice reaches, handed over beside the response: no array per response. */
    @DontInline @LambdaForm$DontInline
    public static boolean respond(String client, Object call, Object response, Object body, int status) throws IOException {
        Dispatcher d = dispatcher;
        return d != null && d.respond(client, call, response, body, status, null);
    }

    @DontInline @LambdaForm$DontInline
    public static void await(String client, Object call) throws IOException {
        Dispatcher d = dispatcher;
        if (d != null) {
            d.await(client, call);
        }
    }

    @DontInline @LambdaForm$DontInline
    public static void end(String client, Object exchange) {
        Dispatcher d = dispatcher;
        if (d != null) {
            d.end(client, exchange);
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
}
