package dev.retryafter.agent.instrument.apache5;

import dev.retryafter.agent.instrument.BlockingClient;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.ModuleHooks;
import dev.retryafter.agent.instrument.RetryStrategyGuard;
import dev.retryafter.agent.instrument.SelfGuardedStrategies;

/**
 * HttpClient 5 classic's side of the agent: its responses read for the one blocking loop, and its retry strategies
 * made to stand aside for a refusal the agent governs. By reflection: the agent cannot name the client's types.
 */
public final class Apache5Calls extends BlockingClient implements ModuleHooks {

    /** {@code new HttpRequestRetryExec}: the strategy and its interface. The strategy, guarded. */
    static final String GUARD_STRATEGY = "apache5.guardStrategy";
    /** The default strategy asked about a 4xx or 5xx: the status, and the exchange's governed call (async) or null. TRUE: "no". */
    static final String STANDS_ASIDE = "apache5.standsAside";

    private final CallDepth depth;
    private final SelfGuardedStrategies selfGuarded;

    public Apache5Calls(CallDepth depth, SelfGuardedStrategies selfGuarded) {
        // core5's EofSensorInputStream's abort discards the connection instead of reading the rest.
        super("apache5", "getHeaders", "getFirstHeader", new String[] {"getEntity", "getContent"}, "abort");
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
}
