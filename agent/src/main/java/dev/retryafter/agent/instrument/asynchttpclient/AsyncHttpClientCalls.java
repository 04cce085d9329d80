package dev.retryafter.agent.instrument.asynchttpclient;

import dev.retryafter.agent.instrument.AsyncCall;
import dev.retryafter.agent.instrument.AsyncCallHook;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.CallDepth;

/**
 * AsyncHttpClient (org.asynchttpclient, 2.x and 3.x, on Netty), governed at its request and response API: the
 * application gets a {@code ListenableFuture} of the agent's at once ({@link GovernedRequest}), and the agent runs
 * the client's own {@code execute} for each attempt once its turn has come, with no thread asleep. Each attempt's
 * {@code AsyncHandler} is the agent's ({@link Attempt}): it decides at the response's headers, before the
 * application's handler hears anything of it; a refusal the agent retries is read and dropped (within a bound, else
 * its connection is closed) and the request sent again, only when its body can be sent twice. The application's
 * handler and future get the final attempt alone.
 *
 * <p>Not at Netty's level: a channel handler sees a request's {@code HttpObject}s as they are written, after the
 * client has taken a pooled connection and started its timeouts, and can neither send a request again (its body's
 * buffers are released once written) nor hand the client a response other than the one that came.
 */
public final class AsyncHttpClientCalls extends AsyncCallHook<AhcApi> {

    /** {@code execute}'s hook: its arguments, the client, then the request and handler. */
    public AsyncHttpClientCalls(RetryEngine engine, CallDepth depth) {
        super("asynchttpclient.execute", "an AsyncHttpClient", engine, depth);
    }

    @Override
    protected AhcApi shapeOf(Class<?> clientType) throws ReflectiveOperationException {
        return new AhcApi(clientType);
    }

    /** The call to the request's host; none for a WebSocket upgrade, or a request the agent cannot name a host of. */
    @Override
    protected Call callFor(AhcApi api, Object[] a) throws ReflectiveOperationException {
        if (a[1] == null || a[2] == null) {
            return null; // no request or handler: the client's to refuse
        }
        Object request = a[1];
        Object[] endpoint = api.endpoint(request);
        if (endpoint == null || endpoint[1] == null || !isHttp((String) endpoint[0])) {
            return null;
        }
        return open((String) endpoint[0], (String) endpoint[1], (Integer) endpoint[2], api.replayable(request));
    }

    /** {@code arguments}: {@code execute}'s, request and handler. */
    @Override
    protected AsyncCall<?> governed(AhcApi api, Call call, Object client, Object[] arguments) {
        return new GovernedRequest(api, call, depth, engine.delays(), client, arguments[0], arguments[1]);
    }

    /** The client's {@code ListenableFuture}: a proxy of the agent's. */
    @Override
    protected Object answer(AsyncCall<?> governed) {
        return ((GovernedRequest) governed).future();
    }

    private static boolean isHttp(String scheme) {
        return "http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme);
    }
}
