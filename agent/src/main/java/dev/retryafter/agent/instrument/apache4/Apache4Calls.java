package dev.retryafter.agent.instrument.apache4;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.instrument.BlockingRetryLoop;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.CancellableCalls;
import dev.retryafter.agent.instrument.ClientMethod;
import dev.retryafter.agent.instrument.SelfGuardedStrategies;
import dev.retryafter.agent.instrument.StrategyGuardedClient;

import java.io.IOException;
import java.lang.reflect.Method;

/**
 * HttpClient 4's side of the agent: a call's body and, without a target, the default host it goes to; its responses
 * read for the one blocking loop; and its status retry strategies guarded. By reflection: the agent cannot name the client's types.
 */
public final class Apache4Calls extends StrategyGuardedClient {

    /** {@code new ServiceUnavailableRetryExec}: the strategy and its interface. The strategy, guarded. */
    static final String GUARD_STRATEGY = "apache4.guardStrategy";
    /** A request was aborted: the request. */
    static final String CANCELLED = "apache4.cancelled";

    private static final String DEFAULT_HOST_PARAMETER = "http.default-host"; // ClientPNames.DEFAULT_HOST
    private static final ClientMethod PARAMS = new ClientMethod("getParams");
    private static final ClientMethod PARAMETER = new ClientMethod("getParameter", "String");
    private static final ClientMethod SCHEME_NAME = new ClientMethod("getSchemeName");
    private static final ClientMethod HOST_NAME = new ClientMethod("getHostName");
    private static final ClientMethod PORT = new ClientMethod("getPort");
    /** {@code HttpEntityEnclosingRequest.getEntity()}: a request of another kind has none, and no body. */
    private static final ClientMethod ENTITY = new ClientMethod("getEntity");
    private static final ClientMethod REPEATABLE = new ClientMethod("isRepeatable");

    /** Each governed request's call, for its abort to end its wait. */
    private final CancellableCalls cancels = new CancellableCalls("isAborted");

    public Apache4Calls(CallDepth depth, SelfGuardedStrategies selfGuarded) {
        // EofSensorInputStream's abortConnection shuts the connection instead of reading the rest.
        super("apache4", "getAllHeaders", "getFirstHeader", new String[] {"getEntity", "getContent"}, "abortConnection", depth, selfGuarded);
    }

    /**
     * {@code exchange}: the request, whose body this reads, or, for a call without a target, the client and the request,
     * whose default host this finds as the client would ({@link #defaultHost}).
     */
    @Override
    public Call begin(BlockingRetryLoop loop, Object exchange, String scheme, String host, int port, boolean replayable,
                      boolean governNew) throws IOException {
        boolean withoutTarget = exchange instanceof Object[];
        Object request = withoutTarget ? ((Object[]) exchange)[1] : exchange;
        if (!governNew || request == null) {
            return null; // none: the client's to refuse
        }
        try {
            if (withoutTarget) {
                Object client = ((Object[]) exchange)[0];
                Object target = defaultHost(client, advisedType(client.getClass()), request);
                if (target == null) {
                    return null; // the client's to refuse
                }
                scheme = (String) SCHEME_NAME.call(target);
                host = (String) HOST_NAME.call(target);
                port = (Integer) PORT.call(target);
            }
            Method entityOf = ENTITY.get(request.getClass());
            Object entity = entityOf == null ? null : entityOf.invoke(request);
            replayable = entity == null || Boolean.TRUE.equals(REPEATABLE.call(entity));
        } catch (ReflectiveOperationException | RuntimeException unusable) {
            return null; // a request the client fails on as it would without the agent
        }
        return loop.begin(scheme, host, port, replayable, cancels, request);
    }

    @Override
    public String[] hooks() {
        return new String[] {GUARD_STRATEGY, CANCELLED};
    }

    @Override
    public Object call(String hook, Object[] a, NewCalls newCalls) {
        if (hook.equals(CANCELLED)) {
            cancels.cancelled(a[0]);
            return null;
        }
        return guard(a);
    }

    /** Which of the advised clients {@code type} is: the first of them up its hierarchy ({@code DefaultHttpClient}: Abstract). */
    private static String advisedType(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            String name = c.getName();
            if (name.endsWith(".InternalHttpClient") || name.endsWith(".MinimalHttpClient") || name.endsWith(".AbstractHttpClient")) {
                return name;
            }
        }
        return type.getName();
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
