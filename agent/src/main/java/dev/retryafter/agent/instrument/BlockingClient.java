package dev.retryafter.agent.instrument;

import dev.retryafter.agent.engine.Call;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;

/**
 * A blocking client's side of the one retry loop ({@link BlockingRetryLoop#respond}): how the agent reads the response
 * the client's advice hands over, and readies the request to be sent again. Its advice says which client it is by
 * {@link #name()} ({@code AgentHooks.begin("apache5", ...)}); the agent reads the rest by reflection, as it cannot name
 * the client's types, and only when it needs it: the headers when the call wants them, {@code Retry-After} on a 4xx
 * or 5xx, the body of a refusal.
 */
public abstract class BlockingClient {

    private static final ClientMethod NAME = new ClientMethod("getName");
    private static final ClientMethod VALUE = new ClientMethod("getValue");

    private final String name;

    protected BlockingClient(String name) {
        this.name = name;
    }

    /** The module's name, as its advice says it. */
    public final String name() {
        return name;
    }

    /** A call's first turn: the loop's, unless the client has turns of its own ({@code exchange}: the advice's, or null). */
    public Call begin(BlockingRetryLoop loop, Object exchange, String scheme, String host, int port, boolean replayable, boolean governNew)
            throws IOException {
        return governNew ? loop.begin(scheme, host, port, replayable) : null;
    }

    /** Offers each of the response's headers to {@code call}. */
    protected abstract void offerHeaders(Object response, Call call) throws ReflectiveOperationException;

    /** The response's {@code Retry-After}, or null. */
    protected abstract String retryAfter(Object response) throws ReflectiveOperationException;

    /** A refusal's body, as a stream with the no-argument method {@link #abortMethod()} (null: none, or the client discards it). */
    protected InputStream refusedBody(Object response) throws ReflectiveOperationException {
        return null;
    }

    /** The body's own method that closes its connection instead of reading the rest ({@link RefusedBody}). */
    protected String abortMethod() {
        return null;
    }

    /** After the body was discarded: the refused response gives its connection back, and the request is ready to go again. */
    protected void release(Object response) throws ReflectiveOperationException {
        close(response);
    }

    /** Each header of an array of the client's header objects, read by their {@code getName()} and {@code getValue()}. */
    protected static void offerEach(Object headers, Call call) throws ReflectiveOperationException {
        if (headers instanceof Object[]) {
            for (Object header : (Object[]) headers) {
                call.offerHeader((String) NAME.call(header), (String) VALUE.call(header));
            }
        }
    }

    /** {@code getValue()} of a header object, or null for none. */
    protected static String valueOf(Object header) throws ReflectiveOperationException {
        return header == null ? null : (String) VALUE.call(header);
    }

    /** Closes a {@link Closeable} response; what the client throws when closing fails is dropped: the retry opens another connection. */
    protected static void close(Object response) {
        if (response instanceof Closeable) {
            try {
                ((Closeable) response).close();
            } catch (IOException | RuntimeException dropped) {
                // the connection is dropped instead of reused
            }
        }
    }
}
