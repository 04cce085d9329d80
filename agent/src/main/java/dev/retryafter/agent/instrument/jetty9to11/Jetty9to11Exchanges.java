package dev.retryafter.agent.instrument.jetty9to11;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.instrument.ModuleHooks;
import dev.retryafter.agent.instrument.jetty.JettyExchanges;

import java.lang.reflect.InvocationHandler;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Jetty 9.4, 10 and 11's side of the shared Jetty core ({@link JettyExchanges}): the request is read by reflection
 * (no Jetty type is named: 12 has the same class names elsewhere), and a governed refusal is taken by a response
 * listener of the agent's put where Jetty puts a protocol handler's ({@code HttpConversation.updateResponseListeners},
 * asked at each response's beginning). The copy sent again is Jetty's own {@code HttpClient.copyRequest}, as its
 * redirects are, with the headers such a copy leaves out put back; only a body Jetty says it can produce again
 * ({@code isReproducible}) is sent again.
 */
public final class Jetty9to11Exchanges implements ModuleHooks {

    /** {@code send(listener)}: request, listener, the request's HttpClient. TRUE: the agent sends it. */
    public static final String SEND = "jetty9to11.send";
    /** {@code updateResponseListeners(null)}: the conversation. */
    public static final String REFUSAL = "jetty9to11.refusal";

    private final JettyExchanges core;
    private final Map<ClassLoader, Jetty9to11Api> apis = Collections.synchronizedMap(new WeakHashMap<ClassLoader, Jetty9to11Api>());

    public Jetty9to11Exchanges(JettyExchanges core) {
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
            return refusal(a[0]);
        }
        return send(a[0], a[1], a[2], newCalls) ? Boolean.TRUE : null;
    }

    /** True when the agent sends the request itself once its turn has come, or has failed it (a held host). */
    public boolean send(Object request, Object listener, Object client, NewCalls newCalls) {
        if (request == null || core.isOwnSend(request) || client == null || !newCalls.governed()) {
            return false;
        }
        Jetty9to11Api api;
        String host;
        try {
            api = api(request);
            host = api.host(request);
            if (host == null) {
                return false;
            }
            return core.send(api, request, listener, api.scheme(request), host, api.port(request), api.reproducible(request), client,
                    api.executor(client));
        } catch (Throwable t) {
            AgentLog.failure("governing a Jetty 9.4-11 request", t);
            return false;
        }
    }

    /**
     * At a response's beginning, no protocol handler of Jetty's taking it ({@code updateResponseListeners(null)}): the
     * agent's listener for a governed refusal, else null. Jetty asks the same with no listener elsewhere (a new exchange,
     * its own handlers handing a response back once its headers are in): only a response with a status and no header
     * yet is at its beginning.
     */
    public Object refusal(Object conversation) {
        if (conversation == null) {
            return null;
        }
        try {
            Jetty9to11Api api = api(conversation);
            if (!core.isGoverned(api, conversation)) {
                return null; // no governed request in it: every ungoverned response's path
            }
            Object[] exchange = api.lastExchange(conversation);
            if (exchange == null || exchange[1] == null) {
                return null;
            }
            Object request = exchange[0];
            Object response = exchange[1];
            int status = api.status(response);
            if (status < AgentHooks.LOWEST_REFUSAL || api.headerCount(response) != 0 || api.expectsContinue(request)) {
                return null; // a request that expects 100-continue is Jetty's ContinueProtocolHandler's, as in Jetty 12
            }
            InvocationHandler refused = core.refusal(request, status);
            return refused == null ? null : api.proxy(api.listenerType, refused);
        } catch (Throwable t) {
            AgentLog.failure("taking a Jetty 9.4-11 refusal", t);
            return null;
        }
    }

    private Jetty9to11Api api(Object jettyObject) throws ReflectiveOperationException {
        ClassLoader loader = jettyObject.getClass().getClassLoader();
        Jetty9to11Api api = apis.get(loader);
        if (api == null) {
            api = new Jetty9to11Api(loader);
            apis.put(loader, api);
        }
        return api;
    }
}
