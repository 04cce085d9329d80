package dev.retryafter.agent.instrument.reactornetty;

import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.Endpoint;
import dev.retryafter.agent.instrument.ModuleHooks;
import dev.retryafter.agent.log.AgentLog;

import java.util.function.BooleanSupplier;

/**
 * Reactor Netty's {@code HttpClient} (1.x, on Netty; Spring's {@code WebClient} under it), governed at the {@code Mono}
 * of a request's response that every {@code response…} method subscribes to: the agent answers a {@code Mono} of its own
 * ({@link GovernedResponse}), which for each subscription takes the request's turn (a scheduled continuation, no thread
 * asleep), then subscribes to the client's own {@code Mono} (one attempt: the client's connection, redirects and
 * connection-reset retry), and decides at the response's headers, before the application's receiver sees anything. A
 * refusal it retries is closed and the client's {@code Mono} subscribed to again, only when the body can be sent twice.
 *
 * <p>Not at Netty's level: a channel handler sees a request's {@code HttpObject}s after the client has taken a pooled
 * connection, can neither send the request again (its buffers are released once written) nor keep a refusal from the
 * client's receiver; and not at {@code doOnRequest}/{@code doOnResponse}, which can observe an exchange but not hold it
 * back or replace its response.
 */
public final class ReactorNettyCalls implements ModuleHooks {

    /** {@code connect()}'s receiver and answer: the client (a request's finalizer), the client's {@code Mono}. */
    public static final String CONNECT = "reactornetty.connect";

    private static final ClassValue<ReactorApi> APIS = new ClassValue<ReactorApi>() {
        @Override
        protected ReactorApi computeValue(Class<?> clientType) {
            try {
                return new ReactorApi(clientType);
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new IllegalStateException("not a Reactor Netty HttpClient of a known shape: " + clientType.getName(), e);
            }
        }
    };

    private final RetryEngine engine;
    private final BooleanSupplier governs;

    /** {@code governs}: whether a new request is governed, asked at each subscription (a {@code Mono} outlives a switch). */
    public ReactorNettyCalls(RetryEngine engine, BooleanSupplier governs) {
        this.engine = engine;
        this.governs = governs;
    }

    @Override
    public String[] hooks() {
        return new String[] {CONNECT};
    }

    @Override
    public Object call(String hook, Object[] a, NewCalls newCalls) throws ReflectiveOperationException {
        return connect(a[0], a[1]);
    }

    /** The agent's {@code Mono} in place of the client's, or null to leave the client's: a WebSocket, or no host to name. */
    Object connect(Object client, Object mono) throws ReflectiveOperationException {
        if (!client.getClass().getName().equals("reactor.netty.http.client.HttpClientFinalizer")) {
            return null; // a WebSocket's finalizer
        }
        ReactorApi api = APIS.get(client.getClass());
        Object[] request = api.request(client);
        if (request == null) {
            return null;
        }
        String scheme = (String) request[0];
        return api.defer(new GovernedResponse(api, engine, governs, Endpoint.host((String) request[1]),
                Endpoint.port(scheme, (Integer) request[2]), (Boolean) request[3], mono));
    }

    static void failure(String where, Throwable t) {
        AgentLog.failure(where, t);
    }
}
