package dev.retryafter.agent.instrument;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.log.AgentLog;

import java.lang.reflect.InvocationTargetException;
import java.util.Arrays;

/**
 * A module's hook into a client's asynchronous {@code execute}, governed as an {@link AsyncCall}: the engine opens the
 * call from the request's host, and the call's first attempt goes at once, or once its turn has come. The hook's
 * arguments are the client, then {@code execute}'s.
 */
public abstract class AsyncCallHook<S> extends ClientHook<S> {

    protected AsyncCallHook(String hook, String client, RetryEngine engine, CallDepth depth) {
        super(hook, client, engine, depth);
    }

    /** The application's future of the final outcome, or null to let the original method run (nothing was sent yet). */
    @Override
    protected final Object newCall(Object[] a) {
        S shape;
        Call call;
        try {
            shape = shape(a[0].getClass());
            call = callFor(shape, a);
        } catch (InvocationTargetException e) {
            return null; // the application's code (a producer) or the client's threw: its own execute meets it as it always did
        } catch (Throwable t) {
            AgentLog.failure("opening " + client + " call", t);
            return null;
        }
        if (call == null) {
            return null;
        }
        AsyncCall<?> governed = governed(shape, call, a[0], Arrays.copyOfRange(a, 1, a.length));
        return governed.first() ? answer(governed) : null;
    }

    /** The call the engine opens for the request ({@link #open}), or null when the agent cannot name its host. */
    protected abstract Call callFor(S shape, Object[] a) throws ReflectiveOperationException;

    /** The governed call of {@code client}'s {@code execute}, called with {@code arguments}. */
    protected abstract AsyncCall<?> governed(S shape, Call call, Object client, Object[] arguments);

    /** What the application gets from {@code execute}: the governed call itself, as a future. */
    protected Object answer(AsyncCall<?> governed) {
        return governed;
    }
}
