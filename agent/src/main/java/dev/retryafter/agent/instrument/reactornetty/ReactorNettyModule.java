package dev.retryafter.agent.instrument.reactornetty;

import dev.retryafter.agent.instrument.ClientModule;
import dev.retryafter.agent.instrument.ModuleContext;
import dev.retryafter.agent.instrument.Target;

/**
 * Reactor Netty's {@code HttpClient} (1.x, under Spring's {@code WebClient}): every {@code response},
 * {@code responseContent}, {@code responseConnection} and {@code responseSingle} of a request meets in
 * {@code HttpClientConnect.connect()}, which makes the request's cold {@code Mono} of its response: the same method, and
 * the same finalizer calling it, in 1.0, 1.1 and 1.3.
 */
public final class ReactorNettyModule implements ClientModule {

    @Override
    public Target[] targets() {
        return new Target[] {new Target("reactor.netty.http.client.HttpClientConnect").advise("connect/0", "reactornetty.ConnectAdvice")};
    }

    @Override
    public Object[] hooks(ModuleContext context) {
        return new Object[] {new ReactorNettyCalls(context.engine, context.governsNew)};
    }
}
