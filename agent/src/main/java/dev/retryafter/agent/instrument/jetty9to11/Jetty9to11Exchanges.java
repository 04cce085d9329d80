package dev.retryafter.agent.instrument.jetty9to11;

import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.instrument.jetty.JettyExchanges;
import dev.retryafter.agent.instrument.jetty.JettyHooks;

import java.lang.reflect.InvocationHandler;

/**
 * Jetty 9.4, 10 and 11's side of the shared Jetty core ({@link JettyExchanges}): the request is read by reflection
 * (no Jetty type is named: 12 has the same class names elsewhere), and a governed refusal is taken by a response
 * listener of the agent's put where Jetty puts a protocol handler's ({@code HttpConversation.updateResponseListeners},
 * asked at each response's beginning). The copy sent again is Jetty's own {@code HttpClient.copyRequest}, as its
 * redirects are, with the headers such a copy leaves out put back; only a body Jetty says it can produce again
 * ({@code isReproducible}) is sent again.
 */
public final class Jetty9to11Exchanges extends JettyHooks<Jetty9to11Api> {

    /** {@code send(listener)}: request, listener, the request's HttpClient. TRUE: the agent sends it. */
    public static final String SEND = "jetty9to11.send";
    /** {@code updateResponseListeners(null)}: the conversation. */
    public static final String REFUSAL = "jetty9to11.refusal";
    /** {@code abort(cause)}: the request (its cause is read from it, as Jetty kept it). */
    public static final String ABORTED = "jetty9to11.aborted";

    public Jetty9to11Exchanges(JettyExchanges core) {
        super(core, SEND, REFUSAL, ABORTED, "client.HttpRequest", "client.HttpConversation");
    }

    @Override
    protected Jetty9to11Api newApi(ClassLoader loader, String root) throws ReflectiveOperationException {
        return new Jetty9to11Api(loader, root);
    }

    @Override
    protected boolean send(Jetty9to11Api api, Object[] a, NewCalls newCalls) throws Exception {
        Object request = a[0];
        Object client = a[2];
        String host = client == null ? null : api.host(request);
        return host != null && newCalls.governed()
                && core.send(api, request, a[1], api.scheme(request), host, api.port(request), api.reproducible(request), client);
    }

    /**
     * At a response's beginning, no protocol handler of Jetty's taking it ({@code updateResponseListeners(null)}): the
     * agent's listener for a governed refusal, else null. Jetty asks the same with no listener elsewhere (a new exchange,
     * its own handlers handing a response back once its headers are in): only a response with a status and no header
     * yet is at its beginning.
     */
    @Override
    protected Object refusal(Jetty9to11Api api, Object[] a) throws Exception {
        Object conversation = a[0];
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
        return refused == null ? null : api.proxy(api.responseListener(), refused);
    }
}
