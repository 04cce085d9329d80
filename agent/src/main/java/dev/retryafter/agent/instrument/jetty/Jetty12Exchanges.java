package dev.retryafter.agent.instrument.jetty;

import java.lang.reflect.InvocationHandler;

/**
 * Jetty 12's side of {@link JettyExchanges}: its advice hands over what the request says of itself, and a refusal is
 * taken at its status line by a protocol handler of the agent's ({@code findProtocolHandler}), whose listener is the
 * core's. Only a body Jetty can rewind ({@code Content.Source.rewind}) is sent again, in a copy
 * ({@code HttpRequest.copy}).
 */
public final class Jetty12Exchanges extends JettyHooks<Jetty12Api> {

    /** {@code send(listener)}: request, listener, scheme, host, port, replayable, the request's HttpClient. TRUE: the agent sends it. */
    public static final String SEND = "jetty.send";
    /** {@code findProtocolHandler}: request, response, status. */
    public static final String REFUSAL = "jetty.refusal";
    /** {@code abort(cause)}: the request (its cause is read from it, as Jetty kept it). */
    public static final String ABORTED = "jetty.aborted";

    public Jetty12Exchanges(JettyExchanges core) {
        super(core, SEND, REFUSAL, ABORTED, "client.transport.HttpRequest");
    }

    @Override
    protected Jetty12Api newApi(ClassLoader loader, String root) throws ReflectiveOperationException {
        return new Jetty12Api(loader, root);
    }

    @Override
    protected boolean send(Jetty12Api api, Object[] a, NewCalls newCalls) {
        String host = (String) a[3];
        return host != null && newCalls.governed()
                && core.send(api, a[0], a[1], (String) a[2], host, (Integer) a[4], (Boolean) a[5], a[6]);
    }

    /** At a response's status line: the agent's protocol handler for a governed refusal, else null. */
    @Override
    protected Object refusal(Jetty12Api api, Object[] a) {
        InvocationHandler refused = core.refusal(a[0], (Integer) a[2]);
        if (refused == null) {
            return null;
        }
        Object listener = api.proxy(api.responseListener, refused);
        return api.proxy(api.protocolHandler, (proxy, method, args) -> {
            switch (method.getName()) {
                case "getName": return "retry-after-agent";
                case "accept": return Boolean.TRUE;
                case "getResponseListener": return listener;
                default: return JettyExchanges.objectMethod(proxy, method, args);
            }
        });
    }
}
