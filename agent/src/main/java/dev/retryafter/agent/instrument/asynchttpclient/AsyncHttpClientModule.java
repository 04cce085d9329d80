package dev.retryafter.agent.instrument.asynchttpclient;

import dev.retryafter.agent.instrument.ClientModule;
import dev.retryafter.agent.instrument.ModuleContext;
import dev.retryafter.agent.instrument.Target;

/**
 * AsyncHttpClient 2.x and 3.x (on Netty): every {@code executeRequest} and {@code prepareXxx().execute()} meets in the
 * private {@code execute/2}, after the client's cookies and request filters. Matched in relocated copies too (fat jars),
 * by the shape a copy must have, in the original's names: the adapter reaches the client's types from that method's own.
 */
public final class AsyncHttpClientModule implements ClientModule {

    @Override
    public Target[] targets() {
        return new Target[] {new Target("org.asynchttpclient.DefaultAsyncHttpClient").advise("execute/2", "asynchttpclient.ExecuteAdvice")
                .relocatable(new Target.Root("org/asynchttpclient/", "AsyncHttpClient"),
                        "execute(Lorg/asynchttpclient/Request;Lorg/asynchttpclient/AsyncHandler;)Lorg/asynchttpclient/ListenableFuture;")};
    }

    @Override
    public Object[] hooks(ModuleContext context) {
        return new Object[] {new AsyncHttpClientCalls(context.engine, context.depth)};
    }
}
