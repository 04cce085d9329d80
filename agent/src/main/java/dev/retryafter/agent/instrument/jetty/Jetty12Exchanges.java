package dev.retryafter.agent.instrument.jetty;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.instrument.ModuleHooks;

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
public final class Jetty12Exchanges implements ModuleHooks {

    /** {@code send(listener)}: request, listener, scheme, host, port, replayable, the client's executor. TRUE: the agent sends it. */
    public static final String SEND = "jetty.send";
    /** {@code findProtocolHandler}: request, response, status. */
    public static final String REFUSAL = "jetty.refusal";

    private final JettyExchanges core;
    private final Map<ClassLoader, Jetty12Api> apis = Collections.synchronizedMap(new WeakHashMap<ClassLoader, Jetty12Api>());

    public Jetty12Exchanges(JettyExchanges core) {
        this.core = core;
    }

    @Override
    public String[] hooks() {
        return new String[] {SEND, REFUSAL};
    }

    /** Off, a request whose turn the agent granted is still let through: it holds a permit. */
    @Override
    public Object call(String hook, Object[] a, NewCalls newCalls) {
        if (hook.equals(REFUSAL)) {
            return refusal(a[0], a[1], (Integer) a[2]);
        }
        boolean own = send(a[0], a[1], (String) a[2], (String) a[3], (Integer) a[4], (Boolean) a[5], (Executor) a[6], newCalls);
        return own ? Boolean.TRUE : null;
    }

    /** True when the agent sends the request itself once its turn has come, or has failed it (a held host). */
    public boolean send(Object request, Object listener, String scheme, String host, int port, boolean replayable,
                        Executor executor, NewCalls newCalls) {
        if (request == null || core.isOwnSend(request) || host == null || !newCalls.governed()) {
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
