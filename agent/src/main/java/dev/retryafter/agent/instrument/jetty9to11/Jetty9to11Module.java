package dev.retryafter.agent.instrument.jetty9to11;

import dev.retryafter.agent.instrument.ClientModule;
import dev.retryafter.agent.instrument.ModuleContext;
import dev.retryafter.agent.instrument.Target;
import dev.retryafter.agent.instrument.jetty.JettyExchanges;
import dev.retryafter.agent.instrument.jetty.JettyModule;

/**
 * Jetty 9.4, 10 and 11 (API in {@code org.eclipse.jetty.client.api}): the same as 12's, in the classes 12 moved to
 * {@code transport}; the refusal at the conversation's choice of listeners, since their HttpClient shares 12's class name.
 * Matched in relocated copies too (fat jars), by the shape a copy must have, in the original's names.
 */
public final class Jetty9to11Module implements ClientModule {

    @Override
    public Target[] targets() {
        return new Target[] {
            new Target("org.eclipse.jetty.client.HttpRequest").advise("send/1", "jetty9to11.SendAdvice")
                    .advise("abort/1", "jetty9to11.AbortAdvice")
                    .relocatable(JettyModule.ROOT, "send(Lorg/eclipse/jetty/client/api/Response$CompleteListener;)V"),
            new Target("org.eclipse.jetty.client.HttpConversation").advise("updateResponseListeners/1", "jetty9to11.RefusalAdvice")
                    .relocatable(JettyModule.ROOT, "updateResponseListeners(Lorg/eclipse/jetty/client/api/Response$ResponseListener;)V")};
    }

    @Override
    public Object[] hooks(ModuleContext context) {
        return new Object[] {new Jetty9to11Exchanges(new JettyExchanges(context.engine))};
    }
}
