package dev.retryafter.agent.instrument.jetty;

import dev.retryafter.agent.instrument.ClientModule;
import dev.retryafter.agent.instrument.ModuleContext;
import dev.retryafter.agent.instrument.Target;

/**
 * Jetty 12: {@code send()} blocks on {@code send(listener)}; the agent's handler takes governed refusals at their
 * status line. 9.4-11 have an HttpClient of the same name, whose {@code findProtocolHandler} takes their api types:
 * not 12's, left alone. Matched in relocated copies too (fat jars), by the shape a copy must have, in the original's
 * names; the HttpClient's by a method 9.4-11's lack ({@code getHttpCookieStore}), so that a relocated 9.4-11 is not
 * taken for a 12 of another shape.
 */
public final class JettyModule implements ClientModule {

    /** Jetty's root package, which a fat jar relocates whole (its client needs its http, io and util packages alike). */
    public static final Target.Root ROOT = new Target.Root("org/eclipse/jetty/", "Jetty HttpClient", true);
    private static final String FIND_PROTOCOL_HANDLER = "findProtocolHandler(Lorg/eclipse/jetty/client/Request;Lorg/eclipse/jetty/client/Response;)"
            + "Lorg/eclipse/jetty/client/ProtocolHandler;";

    @Override
    public Target[] targets() {
        return new Target[] {
            new Target("org.eclipse.jetty.client.transport.HttpRequest").advise("send/1", "jetty.SendAdvice")
                    .advise("abort/1", "jetty.AbortAdvice")
                    .relocatable(ROOT, "send(Lorg/eclipse/jetty/client/Response$CompleteListener;)V"),
            new Target("org.eclipse.jetty.client.HttpClient").advise("findProtocolHandler/2", "jetty.RefusalAdvice")
                    .onlyIfDeclares(FIND_PROTOCOL_HANDLER)
                    .relocatable(ROOT, FIND_PROTOCOL_HANDLER, "getHttpCookieStore()Lorg/eclipse/jetty/http/HttpCookieStore;")};
    }

    @Override
    public Object[] hooks(ModuleContext context) {
        return new Object[] {new Jetty12Exchanges(new JettyExchanges(context.engine))};
    }
}
