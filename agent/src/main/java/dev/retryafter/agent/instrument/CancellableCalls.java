package dev.retryafter.agent.instrument;

import dev.retryafter.agent.engine.Call;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The engine's call of each request a client can cancel from another thread (OkHttp's {@code cancel()}, which its
 * call timeout also calls; Apache's {@code abort()} and {@code cancel()}): a cancel ends the request's wait for its turn
 * at once, and the client then fails the request as cancelled, as it would without the agent, instead of after the
 * wait. Keyed by the client's request object, weakly: a request the application let go takes its entry with it.
 */
public final class CancellableCalls {

    private final Map<Object, Call> calls = Collections.synchronizedMap(new WeakHashMap<Object, Call>());
    private final ClientMethod isCancelled;

    /** {@code isCancelled}: the request's method that says it was cancelled ({@code isCanceled}, {@code isAborted}). */
    public CancellableCalls(String isCancelled) {
        this.isCancelled = new ClientMethod(isCancelled);
    }

    /** {@code request} is governed as {@code call}; one cancelled already (before, or as it began) gives up its turn now. */
    public void put(Object request, Call call) {
        calls.put(request, call);
        if (alreadyCancelled(request)) {
            call.abandon();
        }
    }

    /** The client cancelled {@code request}: its call gives up its turn (a cancel after the request ended changes nothing). */
    public void cancelled(Object request) {
        Call call = calls.get(request);
        if (call != null) {
            call.abandon();
        }
    }

    private boolean alreadyCancelled(Object request) {
        try {
            return Boolean.TRUE.equals(isCancelled.call(request));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false; // not known: a cancel to come still ends the wait
        }
    }
}
