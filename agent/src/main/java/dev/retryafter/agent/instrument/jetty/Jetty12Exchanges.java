package dev.retryafter.agent.instrument.jetty;

import dev.retryafter.agent.AgentLog;

import java.lang.reflect.InvocationHandler;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.Executor;

/**
 * Jetty 12's side of {@link JettyExchanges}: its advice hands over what the request says of itself, and a refusal is
 * taken at its status line by a protocol handler of the agent's ({@code findProtocolHandler}), whose listener is the
 * core's. Only a body Jetty can rewind ({@code Content.Source.rewind}) is sent again, in a copy
 * ({@code HttpRequest.copy}).
 */
public final class Jetty12Exchanges {

    private final JettyExchanges core;
    private final Map<ClassLoader, Jetty12Api> apis = Collections.synchronizedMap(new WeakHashMap<ClassLoader, Jetty12Api>());

    public Jetty12Exchanges(JettyExchanges core) {
        this.core = core;
    }

    /** True when the agent sends the request itself once its turn has come, or has failed it (a held host). */
    public boolean send(Object request, Object listener, String scheme, String host, int port, boolean replayable,
                        Executor executor, boolean governNew) {
        if (request == null || core.isOwnSend(request) || host == null || !governNew) {
            return false;
        }
        Jetty12Api api;
        try {
            api = api(request);
        } catch (Throwable t) {
            AgentLog.failure("governing a Jetty request", t);
            return false;
        }
        return core.send(api, request, listener, scheme, host, port, replayable, null, executor);
    }

    /** At a response's status line: the agent's protocol handler for a governed refusal, else null. */
    public Object refusal(Object request, Object response, int status) {
        try {
            InvocationHandler refused = core.refusal(request, status);
            if (refused == null) {
                return null;
            }
            Jetty12Api api = api(request);
            Object listener = api.proxy(api.responseListener, refused);
            return api.proxy(api.protocolHandler, (proxy, method, args) -> {
                switch (method.getName()) {
                    case "getName": return "retry-after-agent";
                    case "accept": return Boolean.TRUE;
                    case "getResponseListener": return listener;
                    default: return JettyExchanges.objectMethod(proxy, method, args);
                }
            });
        } catch (Throwable t) {
            AgentLog.failure("taking a Jetty refusal", t);
            return null;
        }
    }

    private Jetty12Api api(Object request) throws ReflectiveOperationException {
        ClassLoader loader = request.getClass().getClassLoader();
        Jetty12Api api = apis.get(loader);
        if (api == null) {
            api = new Jetty12Api(loader);
            apis.put(loader, api);
        }
        return api;
    }
}
