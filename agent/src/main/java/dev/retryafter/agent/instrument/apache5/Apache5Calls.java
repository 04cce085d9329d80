package dev.retryafter.agent.instrument.apache5;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.instrument.BlockingRetryLoop;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.ClientMethod;
import dev.retryafter.agent.instrument.RetryStrategyGuard;
import dev.retryafter.agent.instrument.SelfGuardedStrategies;
import dev.retryafter.agent.instrument.StrategyGuardedClient;

import java.io.IOException;

/**
 * HttpClient 5 classic's side of the agent: its responses read for the one blocking loop, and its retry strategies
 * made to stand aside for a refusal the agent governs. By reflection: the agent cannot name the client's types.
 */
public final class Apache5Calls extends StrategyGuardedClient {

    /** {@code new HttpRequestRetryExec}: the strategy and its interface. The strategy, guarded. */
    static final String GUARD_STRATEGY = "apache5.guardStrategy";
    /** The default strategy asked about a 4xx or 5xx: the status, and the exchange's governed call (async) or null. TRUE: "no". */
    static final String STANDS_ASIDE = "apache5.standsAside";

    private static final ClientMethod AUTHORITY = new ClientMethod("getAuthority");
    private static final ClientMethod SCHEME = new ClientMethod("getScheme");
    private static final ClientMethod HOST_NAME = new ClientMethod("getHostName");
    private static final ClientMethod PORT = new ClientMethod("getPort");
    private static final ClientMethod ENTITY = new ClientMethod("getEntity");
    private static final ClientMethod REPEATABLE = new ClientMethod("isRepeatable");

    public Apache5Calls(CallDepth depth, SelfGuardedStrategies selfGuarded) {
        // core5's EofSensorInputStream's abort discards the connection instead of reading the rest.
        super("apache5", "getHeaders", "getFirstHeader", new String[] {"getEntity", "getContent"}, "abort", depth, selfGuarded);
    }

    /**
     * {@code exchange}: the request's body, whose repeatability this reads, or with no host, the request of an
     * InternalHttpClient call without a target ({@code executeOpen(null, request, context)}, as Spring 6 calls it), whose
     * host the client takes from the request's authority, as here ({@code RoutingSupport.determineHost}).
     */
    @Override
    public Call begin(BlockingRetryLoop loop, Object exchange, String scheme, String host, int port, boolean replayable,
                      boolean governNew) throws IOException {
        if (!governNew) {
            return null;
        }
        Object entity = exchange;
        try {
            if (host == null && exchange != null) {
                Object authority = AUTHORITY.call(exchange);
                scheme = (String) SCHEME.call(exchange);
                if (authority == null || scheme == null) {
                    return null; // the client refuses the request itself
                }
                host = (String) HOST_NAME.call(authority);
                port = (Integer) PORT.call(authority);
                entity = ENTITY.call(exchange);
            }
            replayable = entity == null || Boolean.TRUE.equals(REPEATABLE.call(entity));
        } catch (ReflectiveOperationException | RuntimeException unusable) {
            return null; // a request the client fails on as it would without the agent
        }
        return loop.begin(scheme, host, port, replayable);
    }

    @Override
    public String[] hooks() {
        return new String[] {GUARD_STRATEGY, STANDS_ASIDE};
    }

    @Override
    public Object call(String hook, Object[] a, NewCalls newCalls) {
        if (hook.equals(GUARD_STRATEGY)) {
            return guard(a);
        }
        return RetryStrategyGuard.isGovernedRefusal(depth, (Integer) a[0], a[1]) ? Boolean.TRUE : null;
    }
}
