package dev.retryafter.agent.instrument.apache4;

import dev.retryafter.agent.instrument.BlockingClient;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.ClientMethod;
import dev.retryafter.agent.instrument.ModuleHooks;
import dev.retryafter.agent.instrument.RetryStrategyGuard;
import dev.retryafter.agent.instrument.SelfGuardedStrategies;

/**
 * HttpClient 4's side of the agent: its responses read for the one blocking loop, the default host a call without a
 * target goes to, and its status retry strategies guarded. By reflection: the agent cannot name the client's types.
 */
public final class Apache4Calls extends BlockingClient implements ModuleHooks {

    /** A call without a target: the client, its type (as the advice's class names it), the request. The host, or null. */
    static final String DEFAULT_HOST = "apache4.defaultHost";
    /** {@code new ServiceUnavailableRetryExec}: the strategy and its interface. The strategy, guarded. */
    static final String GUARD_STRATEGY = "apache4.guardStrategy";

    private static final String DEFAULT_HOST_PARAMETER = "http.default-host"; // ClientPNames.DEFAULT_HOST
    private static final ClientMethod PARAMS = new ClientMethod("getParams");
    private static final ClientMethod PARAMETER = new ClientMethod("getParameter", "String");

    private final CallDepth depth;
    private final SelfGuardedStrategies selfGuarded;

    public Apache4Calls(CallDepth depth, SelfGuardedStrategies selfGuarded) {
        // EofSensorInputStream's abortConnection shuts the connection instead of reading the rest.
        super("apache4", "getAllHeaders", "getFirstHeader", new String[] {"getEntity", "getContent"}, "abortConnection");
        this.depth = depth;
        this.selfGuarded = selfGuarded;
    }

    @Override
    public String[] hooks() {
        return new String[] {DEFAULT_HOST, GUARD_STRATEGY};
    }

    @Override
    public Object call(String hook, Object[] a, NewCalls newCalls) throws ReflectiveOperationException {
        if (hook.equals(GUARD_STRATEGY)) {
            return RetryStrategyGuard.guard(a[0], (Class<?>) a[1], depth, selfGuarded);
        }
        return defaultHost(a[0], (String) a[1], a[2]);
    }

    /**
     * {@code execute(HttpUriRequest)} already took the target from an absolute URI (determineTarget). A null one left is
     * what InternalHttpClient and AbstractHttpClient then look up as the default host, in the request's parameters, then
     * the deprecated client's (failing without one); MinimalHttpClient refuses it.
     */
    private static Object defaultHost(Object client, String clientType, Object request) throws ReflectiveOperationException {
        if (clientType.endsWith(".MinimalHttpClient")) {
            return null;
        }
        Object host = PARAMETER.call(PARAMS.call(request), DEFAULT_HOST_PARAMETER);
        if (host == null && clientType.endsWith(".AbstractHttpClient")) {
            host = PARAMETER.call(PARAMS.call(client), DEFAULT_HOST_PARAMETER);
        }
        return host;
    }
}
