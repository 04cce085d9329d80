package dev.retryafter.agent.instrument.asynchttpclient;

import dev.retryafter.agent.instrument.ModuleHooks;
import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.Endpoint;

import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

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
public final class AsyncHttpClientCalls implements ModuleHooks {

    /** {@code execute}'s arguments: client, request, handler. */
    public static final String EXECUTE = "asynchttpclient.execute";


    /** As the other adapters' discards: long enough for a small body on a slow link, short against any wait. */
    static final long DISCARD_MILLIS = 100;
    static final long DISCARD_BYTES = 64 * 1024;

    /** Where delayed sends and the agent's own failures run: never the agent's delay thread, never an I/O thread. */
    static final Executor ASYNC = ForkJoinPool.getCommonPoolParallelism() > 1 ? ForkJoinPool.commonPool() : new ThreadPerTask();

    /** A class, not a lambda: this class is loaded at start-up, where no lambda of the agent's is linked (see AgentInstaller). */
    private static final class ThreadPerTask implements Executor {
        @Override
        public void execute(Runnable task) {
            Thread thread = new Thread(task, "retry-after-agent-asynchttpclient");
            thread.setDaemon(true);
            thread.start();
        }
    }

    private static final ClassValue<AhcApi> APIS = new ClassValue<AhcApi>() {
        @Override
        protected AhcApi computeValue(Class<?> clientType) {
            try {
                return new AhcApi(clientType);
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new IllegalStateException("not an AsyncHttpClient of a known shape: " + clientType.getName(), e);
            }
        }
    };

    private final RetryEngine engine;
    private final CallDepth depth;

    public AsyncHttpClientCalls(RetryEngine engine, CallDepth depth) {
        this.engine = engine;
        this.depth = depth;
    }

    /** The application's future of the final outcome, or null to let the original method run (nothing was sent yet). */
    @Override
    public String[] hooks() {
        return new String[] {EXECUTE};
    }

    @Override
    public Object call(String hook, Object[] a, NewCalls newCalls) {
        return newCalls.governed() ? execute(a[0], a[1], a[2]) : null;
    }

    public Object execute(Object client, Object request, Object handler) {
        if (depth.isInside()) {
            return null; // the agent's own attempt, or a request made inside a governed one: governed once, by the outer one
        }
        AhcApi api;
        Call call;
        try {
            api = APIS.get(client.getClass());
            Object[] endpoint = api.endpoint(request);
            if (endpoint == null || endpoint[1] == null || !isHttp((String) endpoint[0])) {
                return null; // a WebSocket upgrade, or nothing the agent can name a host by
            }
            String scheme = (String) endpoint[0];
            call = engine.open(Endpoint.host((String) endpoint[1]), Endpoint.port(scheme, (Integer) endpoint[2]), api.replayable(request));
        } catch (Throwable t) {
            AgentLog.failure("opening an AsyncHttpClient request", t);
            return null;
        }
        GovernedRequest governed = new GovernedRequest(api, call, depth, engine.delays(), client, request, handler);
        return governed.first() ? governed.future() : null;
    }

    private static boolean isHttp(String scheme) {
        return "http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme);
    }
}
