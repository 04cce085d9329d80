package dev.retryafter.agent.instrument.asynchttpclient;

import dev.retryafter.agent.instrument.ClientModule;
import dev.retryafter.agent.instrument.Target;

/**
 * AsyncHttpClient 2.x and 3.x (on Netty): every {@code executeRequest} and {@code prepareXxx().execute()} meets in the
 * private {@code execute/2}, after the client's cookies and request filters.
 */
public final class AsyncHttpClientModule implements ClientModule {

    @Override
    public Target[] targets() {
        return new Target[] {new Target("org.asynchttpclient.DefaultAsyncHttpClient").advise("execute/2", "asynchttpclient.ExecuteAdvice")};
    }
}
