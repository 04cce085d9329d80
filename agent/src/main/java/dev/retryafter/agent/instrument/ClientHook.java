package dev.retryafter.agent.instrument;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.RetryEngine;

/**
 * A module's one hook ({@link ModuleHooks}) into its client, with the client's shape {@code S}: its types and methods as
 * the agent reaches them by reflection (an application's class loader has them, or a fat jar relocated them, so the
 * agent cannot name them), found once per client class and kept while the class lives. The hook answers only for a new
 * call that may be governed now, and not for one made inside a governed call (the agent's own attempt, a client
 * wrapping another: governed once, by the outer one); else null, and the client's own method runs.
 */
public abstract class ClientHook<S> implements ModuleHooks {

    private final String hook;
    /** How failures name the client: {@code "an AsyncHttpClient"}. */
    protected final String client;
    protected final RetryEngine engine;
    /** Null for a hook that is no call ({@link #call} its own). */
    protected final CallDepth depth;
    private final ClassValue<S> shapes = new Shapes();

    protected ClientHook(String hook, String client, RetryEngine engine, CallDepth depth) {
        this.hook = hook;
        this.client = client;
        this.engine = engine;
        this.depth = depth;
    }

    @Override
    public final String[] hooks() {
        return new String[] {hook};
    }

    @Override
    public Object call(String hook, Object[] args, NewCalls newCalls) {
        return newCalls.governed() && !depth.isInside() ? newCall(args) : null;
    }

    /** The hook's answer for a call that may be governed, its arguments as the advice hands them; null for the plain call. */
    protected abstract Object newCall(Object[] args);

    /** A new call to {@code host}, by the client's names ({@link Endpoint}). */
    protected final Call open(String scheme, String host, int port, boolean replayable) {
        return engine.open(Endpoint.host(host), Endpoint.port(scheme, port), replayable);
    }

    /** The shape of the client class {@code type}; an {@link IllegalStateException} for a class of no known shape. */
    protected final S shape(Class<?> type) {
        return shapes.get(type);
    }

    /** {@code type}'s shape, found by reflection: what it lacks is thrown. */
    protected abstract S shapeOf(Class<?> type) throws ReflectiveOperationException;

    /** A class, not a lambda: see AgentInstaller. */
    private final class Shapes extends ClassValue<S> {
        @Override
        protected S computeValue(Class<?> type) {
            try {
                return shapeOf(type);
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new IllegalStateException("not " + client + " of a known shape: " + type.getName(), e);
            }
        }
    }
}
