package dev.retryafter.agent.instrument.vertx;

import dev.retryafter.agent.instrument.ClientModule;
import dev.retryafter.agent.instrument.ModuleContext;
import dev.retryafter.agent.instrument.Target;

/** Vert.x {@code WebClient} 4 and 5: the agent's interceptor goes first in each client's chain as it is made. */
public final class VertxModule implements ClientModule {

    @Override
    public Target[] targets() {
        return new Target[] {new Target("io.vertx.ext.web.client.impl.WebClientBase").advise("<init>/2", "vertx.CreatedAdvice")};
    }

    @Override
    public Object[] hooks(ModuleContext context) {
        return new Object[] {new VertxWebClients(context.engine, context.governsNew)};
    }
}
