package dev.retryafter.agent.instrument.apache4async;

import dev.retryafter.agent.instrument.ClientModule;
import dev.retryafter.agent.instrument.Target;

/** HttpAsyncClient 4.1: every execute overload meets in {@code execute/4} (producer, consumer, context, callback). It retries no status itself. */
public final class Apache4AsyncModule implements ClientModule {

    @Override
    public Target[] targets() {
        return new Target[] {
            new Target("org.apache.http.impl.nio.client.InternalHttpAsyncClient").advise("execute/4", "apache4async.ExecuteAdvice"),
            new Target("org.apache.http.impl.nio.client.MinimalHttpAsyncClient").advise("execute/4", "apache4async.ExecuteAdvice")};
    }
}
