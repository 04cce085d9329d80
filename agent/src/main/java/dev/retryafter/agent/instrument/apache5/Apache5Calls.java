package dev.retryafter.agent.instrument.apache5;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.instrument.BlockingClient;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.ClientMethod;
import dev.retryafter.agent.instrument.ModuleHooks;
import dev.retryafter.agent.instrument.RetryStrategyGuard;
import dev.retryafter.agent.instrument.SelfGuardedStrategies;

import java.io.InputStream;

/**
 * HttpClient 5 classic's side of the agent: its responses read for the one blocking loop, and its retry strategies
 * made to stand aside for a refusal the agent governs. By reflection: the agent cannot name the client's types.
 */
public final class Apache5Calls extends BlockingClient implements ModuleHooks {

    /** {@code new HttpRequestRetryExec}: the strategy and its interface. The strategy, guarded. */
    static final String GUARD_STRATEGY = "apache5.guardStrategy";
    /** The default strategy asked about a 4xx or 5xx: the status, and the exchange's governed call (async) or null. TRUE: "no". */
    static final String STANDS_ASIDE = "apache5.standsAside";

    private static final ClientMethod HEADERS = new ClientMethod("getHeaders");
    private static final ClientMethod FIRST_HEADER = new ClientMethod("getFirstHeader", "String");
    private static final ClientMethod ENTITY = new ClientMethod("getEntity");
    private static final ClientMethod CONTENT = new ClientMethod("getContent");

    private final CallDepth depth;
    private final SelfGuardedStrategies selfGuarded;

    public Apache5Calls(CallDepth depth, SelfGuardedStrategies selfGuarded) {
        super("apache5");
        this.depth = depth;
        this.selfGuarded = selfGuarded;
    }

    @Override
    public String[] hooks() {
        return new String[] {GUARD_STRATEGY, STANDS_ASIDE};
    }

    @Override
    public Object call(String hook, Object[] a, NewCalls newCalls) {
        if (hook.equals(GUARD_STRATEGY)) {
            return RetryStrategyGuard.guard(a[0], (Class<?>) a[1], depth, selfGuarded);
        }
        return RetryStrategyGuard.isGovernedRefusal(depth, (Integer) a[0], a[1]) ? Boolean.TRUE : null;
    }

    @Override
    protected void offerHeaders(Object response, Call call) throws ReflectiveOperationException {
        offerEach(HEADERS.call(response), call);
    }

    @Override
    protected String retryAfter(Object response) throws ReflectiveOperationException {
        return valueOf(FIRST_HEADER.call(response, "Retry-After"));
    }

    @Override
    protected InputStream refusedBody(Object response) throws ReflectiveOperationException {
        Object entity = ENTITY.call(response);
        return entity == null ? null : (InputStream) CONTENT.call(entity);
    }

    /** core5's EofSensorInputStream's: it discards the connection instead of reading the rest. */
    @Override
    protected String abortMethod() {
        return "abort";
    }
}
