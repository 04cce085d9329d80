package dev.retryafter.agent.instrument.apache5;

import dev.retryafter.agent.instrument.ClientModule;
import dev.retryafter.agent.instrument.ModuleContext;
import dev.retryafter.agent.instrument.Target;

/**
 * Apache HttpClient 5 (classic): the clients' {@code doExecute}, the holder of an exchange's pooled connection, and
 * the retry strategies. Matched in relocated copies too (fat jars), by the shape a copy must have, in the original's names.
 */
public final class Apache5Module implements ClientModule {

    public static final Target.Root ROOT = new Target.Root("org/apache/hc/", "Apache HttpClient 5");
    private static final String DO_EXECUTE = "doExecute(Lorg/apache/hc/core5/http/HttpHost;Lorg/apache/hc/core5/http/ClassicHttpRequest;"
            + "Lorg/apache/hc/core5/http/protocol/HttpContext;)Lorg/apache/hc/client5/http/impl/classic/CloseableHttpResponse;";

    @Override
    public Target[] targets() {
        return new Target[] {
            new Target("org.apache.hc.client5.http.impl.classic.InternalHttpClient").advise("doExecute/3", "apache5.ExecuteAdvice")
                    .relocatable(ROOT, DO_EXECUTE),
            new Target("org.apache.hc.client5.http.impl.classic.MinimalHttpClient").advise("doExecute/3", "apache5.ExecuteAdvice")
                    .relocatable(ROOT, DO_EXECUTE),
            // The holder of an exchange's pooled connection: a governed attempt's permit lasts until it goes back.
            new Target("org.apache.hc.client5.http.impl.classic.InternalExecRuntime")
                    .advise("acquireEndpoint", "apache5.LeaseAcquiredAdvice")
                    .advise("releaseEndpoint discardEndpoint", "apache5.LeaseReleasedAdvice")
                    .relocatable(ROOT, "releaseEndpoint()V", "discardEndpoint()V"),
            new Target("org.apache.hc.client5.http.classic.methods.HttpUriRequestBase").advise("cancel/0", "apache5.CancelAdvice")
                    .relocatable(ROOT, "cancel()Z", "isCancelled()Z"),
            new Target("org.apache.hc.client5.http.impl.classic.HttpRequestRetryExec").advise("<init>/1", "apache5.RetryStrategyAdvice")
                    .relocatable(ROOT, "<init>(Lorg/apache/hc/client5/http/HttpRequestRetryStrategy;)V"),
            // The default strategy answers for itself: asked about every response, it is not worth a reflective guard.
            new Target("org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy")
                    .advise("retryRequest/3", "apache5.DefaultRetryStrategyAdvice").guardsItself()
                    .relocatable(ROOT, "retryRequest(Lorg/apache/hc/core5/http/HttpResponse;ILorg/apache/hc/core5/http/protocol/HttpContext;)Z")};
    }

    @Override
    public Object[] hooks(ModuleContext context) {
        return new Object[] {new Apache5Calls(context.depth, context.selfGuarded)};
    }
}
