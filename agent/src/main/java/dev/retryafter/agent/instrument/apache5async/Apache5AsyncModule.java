package dev.retryafter.agent.instrument.apache5async;

import dev.retryafter.agent.instrument.ClientModule;
import dev.retryafter.agent.instrument.ModuleContext;
import dev.retryafter.agent.instrument.Target;

/**
 * HttpAsyncClient 5: every execute overload meets in {@code doExecute/6}, HTTP/1.1 and H2 alike; its retry exec is
 * guarded as classic's is (with classic's advice). Matched in relocated copies too (fat jars), by the shape a copy must
 * have, in the original's names.
 */
public final class Apache5AsyncModule implements ClientModule {

    public static final Target.Root ROOT = new Target.Root("org/apache/hc/", "Apache HttpAsyncClient 5");
    private static final String DO_EXECUTE = "doExecute(Lorg/apache/hc/core5/http/HttpHost;Lorg/apache/hc/core5/http/nio/AsyncRequestProducer;"
            + "Lorg/apache/hc/core5/http/nio/AsyncResponseConsumer;Lorg/apache/hc/core5/http/nio/HandlerFactory;"
            + "Lorg/apache/hc/core5/http/protocol/HttpContext;Lorg/apache/hc/core5/concurrent/FutureCallback;)Ljava/util/concurrent/Future;";

    @Override
    public Target[] targets() {
        return new Target[] {
            new Target("org.apache.hc.client5.http.impl.async.InternalAbstractHttpAsyncClient").advise("doExecute/6", "apache5async.ExecuteAdvice")
                    .relocatable(ROOT, DO_EXECUTE),
            new Target("org.apache.hc.client5.http.impl.async.AbstractMinimalHttpAsyncClientBase")
                    .advise("doExecute/6", "apache5async.ExecuteAdvice").relocatable(ROOT, DO_EXECUTE),
            new Target("org.apache.hc.client5.http.impl.async.AsyncHttpRequestRetryExec").advise("<init>/1", "apache5.RetryStrategyAdvice")
                    .relocatable(ROOT, "<init>(Lorg/apache/hc/client5/http/HttpRequestRetryStrategy;)V")};
    }

    @Override
    public Object[] hooks(ModuleContext context) {
        return new Object[] {new Apache5AsyncCalls(context.engine, context.depth)};
    }
}
