package dev.retryafter.agent.instrument.apache5async;

import dev.retryafter.agent.instrument.ClientModule;
import dev.retryafter.agent.instrument.Target;

/**
 * HttpAsyncClient 5: every execute overload meets in {@code doExecute/6}, HTTP/1.1 and H2 alike; its retry exec is
 * guarded as classic's is (with classic's advice).
 */
public final class Apache5AsyncModule implements ClientModule {

    @Override
    public Target[] targets() {
        return new Target[] {
            new Target("org.apache.hc.client5.http.impl.async.InternalAbstractHttpAsyncClient").advise("doExecute/6", "apache5async.ExecuteAdvice"),
            new Target("org.apache.hc.client5.http.impl.async.AbstractMinimalHttpAsyncClientBase")
                    .advise("doExecute/6", "apache5async.ExecuteAdvice"),
            new Target("org.apache.hc.client5.http.impl.async.AsyncHttpRequestRetryExec").advise("<init>/1", "apache5.RetryStrategyAdvice")};
    }
}
