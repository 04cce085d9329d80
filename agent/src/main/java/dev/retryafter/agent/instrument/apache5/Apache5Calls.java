package dev.retryafter.agent.instrument.apache5;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.instrument.BlockingRetryLoop;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.CancellableCalls;
import dev.retryafter.agent.instrument.ClientMethod;
import dev.retryafter.agent.instrument.RetryStrategyGuard;
import dev.retryafter.agent.instrument.SelfGuardedStrategies;
import dev.retryafter.agent.instrument.StrategyGuardedClient;

import java.io.IOException;
import java.io.InterruptedIOException;

/**
 * HttpClient 5 classic's side of the agent: its responses read for the one blocking loop, and its retry strategies
 * made to stand aside for a refusal the agent governs. By reflection: the agent cannot name the client's types.
 */
public final class Apache5Calls extends StrategyGuardedClient {

    /** {@code new HttpRequestRetryExec}: the strategy and its interface. The strategy, guarded. */
    static final String GUARD_STRATEGY = "apache5.guardStrategy";
    /** The default strategy asked about a 4xx or 5xx: the status, and the exchange's governed call (async) or null. TRUE: "no". */
    static final String STANDS_ASIDE = "apache5.standsAside";
    /** A request was cancelled (or aborted): the request. */
    static final String CANCELLED = "apache5.cancelled";

    private static final ClientMethod AUTHORITY = new ClientMethod("getAuthority");
    private static final ClientMethod SCHEME = new ClientMethod("getScheme");
    private static final ClientMethod HOST_NAME = new ClientMethod("getHostName");
    private static final ClientMethod PORT = new ClientMethod("getPort");
    private static final ClientMethod ENTITY = new ClientMethod("getEntity");
    private static final ClientMethod REPEATABLE = new ClientMethod("isRepeatable");

    /** Each governed request's call, for its cancel to end its wait. */
    private final CancellableCalls cancels = new CancellableCalls("isCancelled");

    public Apache5Calls(CallDepth depth, SelfGuardedStrategies selfGuarded) {
        // core5's EofSensorInputStream's abort discards the connection instead of reading the rest.
        super("apache5", "getHeaders", "getFirstHeader", new String[] {"getEntity", "getContent"}, "abort", depth, selfGuarded);
    }

    /**
     * {@code exchange}: the request, whose body's repeatability this reads and whose cancel ends its wait; with no host,
     * an InternalHttpClient call without a target ({@code executeOpen(null, request, context)}, as Spring 6 calls it),
     * whose host the client takes from the request's authority, as here ({@code RoutingSupport.determineHost}).
     */
    @Override
    public Call begin(BlockingRetryLoop loop, Object exchange, String scheme, String host, int port, boolean replayable,
                      boolean governNew) throws IOException {
        if (!governNew) {
            return null;
        }
        try {
            if (host == null) {
                if (exchange == null) {
                    return null; // none: the client's to refuse
                }
                Object authority = AUTHORITY.call(exchange);
                scheme = (String) SCHEME.call(exchange);
                if (authority == null || scheme == null) {
                    return null; // the client refuses the request itself
                }
                host = (String) HOST_NAME.call(authority);
                port = (Integer) PORT.call(authority);
            }
            Object entity = exchange == null ? null : ENTITY.call(exchange);
            replayable = entity == null || Boolean.TRUE.equals(REPEATABLE.call(entity));
        } catch (ReflectiveOperationException | RuntimeException unusable) {
            return null; // a request the client fails on as it would without the agent
        }
        return loop.begin(scheme, host, port, replayable, cancels, exchange);
    }

    /** As the client fails a request cancelled in its exchange; sent again, it would throw an IllegalStateException. */
    @Override
    protected IOException cancelledWhileWaiting(String host) {
        return new InterruptedIOException("Request aborted (cancelled while waiting out a refusal from " + host + ")");
    }

    @Override
    public String[] hooks() {
        return new String[] {GUARD_STRATEGY, STANDS_ASIDE, CANCELLED};
    }

    @Override
    public Object call(String hook, Object[] a, NewCalls newCalls) {
        if (hook.equals(GUARD_STRATEGY)) {
            return guard(a);
        }
        if (hook.equals(CANCELLED)) {
            cancels.cancelled(a[0]);
            return null;
        }
        return RetryStrategyGuard.isGovernedRefusal(depth, (Integer) a[0], a[1]) ? Boolean.TRUE : null;
    }
}
