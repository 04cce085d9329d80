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
    private static final ClientMethod HEADERS = new ClientMethod("headers");
    private static final ClientMethod SIZE = new ClientMethod("size");
    private static final ClientMethod NAME_AT = new ClientMethod("name", "int");
    private static final ClientMethod VALUE_AT = new ClientMethod("value", "int");

    private final String name;
    private final ClientMethod headers;
    private final ClientMethod header;
    private final ClientMethod[] toBody;
    private final String abortMethod;

    /**
     * A client whose response has {@code headersMethod()} (an array of header objects with {@code getName()} and
     * {@code getValue()}; null: {@link #offerHeaders} is the client's own), {@code headerMethod(String)} (a header
     * object, or its value), and a body reached by the chain of no-argument methods {@code toBody} (none: no body to
     * discard, or the client's close discards it itself), whose own no-argument method {@code abortMethod} closes its
     * connection instead of reading the rest (null: none, closed plainly).
     */
    protected BlockingClient(String name, String headersMethod, String headerMethod, String[] toBody, String abortMethod) {
        this.name = name;
        this.headers = headersMethod == null ? null : new ClientMethod(headersMethod);
        this.header = new ClientMethod(headerMethod, "String");
        this.toBody = new ClientMethod[toBody.length];
        for (int i = 0; i < toBody.length; i++) {
            this.toBody[i] = new ClientMethod(toBody[i]);
        }
        this.abortMethod = abortMethod;
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

    /**
     * An attempt's response: the one loop's answer, unless the client keeps its calls itself ({@code call}: what the
     * advice has for it, its {@link #begin}'s answer or the client's own object; {@code body}: null, but for a client
     * whose advice alone reaches the body).
     */
    public boolean respond(BlockingRetryLoop loop, Object call, Object response, Object body, int status, Throwable thrown)
            throws IOException {
        return loop.respond(this, (Call) call, response, status, thrown);
    }

    /** For a client whose advice discards a refusal itself, or that moves a call on itself: the next attempt's turn. */
    public void await(Object call) throws IOException {
    }

    /** For a client whose exchange outlives the advised method: it is over, its permit goes back. */
    public void end(Object exchange) {
    }

    /** Offers each of the response's headers to {@code call}. */
    protected void offerHeaders(Object response, Call call) throws ReflectiveOperationException {
        Object all = headers.call(response);
        if (all instanceof Object[]) {
            for (Object each : (Object[]) all) {
                call.offerHeader((String) NAME.call(each), (String) VALUE.call(each));
            }
        }
    }

    /** Offers each header of a response whose {@code headers()} has {@code size()}, {@code name(i)} and {@code value(i)}. */
    protected static void offerIndexedHeaders(Object response, Call call) throws ReflectiveOperationException {
        Object headers = HEADERS.call(response);
        for (int i = 0, n = (Integer) SIZE.call(headers); i < n; i++) {
            call.offerHeader((String) NAME_AT.call(headers, i), (String) VALUE_AT.call(headers, i));
        }
    }

    /** The response's {@code Retry-After}, or null. */
    final String retryAfter(Object response) throws ReflectiveOperationException {
        Object found = header.call(response, "Retry-After");
        return found == null || found instanceof String ? (String) found : (String) VALUE.call(found);
    }

    /** A refusal's body, as a stream with the no-argument method {@link #abortMethod}, or null for none. */
    protected InputStream refusedBody(Object response) throws ReflectiveOperationException {
        Object body = toBody.length == 0 ? null : response;
        for (int i = 0; i < toBody.length && body != null; i++) {
            body = toBody[i].call(body);
        }
        return (InputStream) body;
    }

    final String abortMethod() {
        return abortMethod;
    }

    /** After the body was discarded: the refused response gives its connection back, and the request is ready to go again. */
    protected void release(Object response) throws ReflectiveOperationException {
        close(response);
    }

    /**
     * How a request the application cancelled while the agent waited out a refusal fails: null, at its next attempt, as
     * the client fails a cancelled request; a client that fails such a request with no {@code IOException} says here.
     */
    protected IOException cancelledWhileWaiting(String host) {
        return null;
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
