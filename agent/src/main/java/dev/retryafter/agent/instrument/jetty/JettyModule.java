package dev.retryafter.agent.instrument.jetty;

import dev.retryafter.agent.instrument.ClientModule;
import dev.retryafter.agent.instrument.Target;

/**
 * Jetty 12: {@code send()} blocks on {@code send(listener)}; the agent's handler takes governed refusals at their
 * status line. 9.4-11 have an HttpClient of the same name, whose {@code findProtocolHandler} takes their api types:
 * not 12's, left alone.
 */
public final class JettyModule implements ClientModule {

    @Override
    public Target[] targets() {
        return new Target[] {
            new Target("org.eclipse.jetty.client.transport.HttpRequest").advise("send/1", "jetty.SendAdvice"),
            new Target("org.eclipse.jetty.client.HttpClient").advise("findProtocolHandler/2", "jetty.RefusalAdvice")
                    .onlyIfDeclares("findProtocolHandler(Lorg/eclipse/jetty/client/Request;Lorg/eclipse/jetty/client/Response;)"
                            + "Lorg/eclipse/jetty/client/ProtocolHandler;")};
    }
}
