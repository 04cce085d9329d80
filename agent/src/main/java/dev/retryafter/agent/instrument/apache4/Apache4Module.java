package dev.retryafter.agent.instrument.apache4;

import dev.retryafter.agent.instrument.ClientModule;
import dev.retryafter.agent.instrument.ModuleContext;
import dev.retryafter.agent.instrument.Target;

/**
 * Apache HttpClient 4: the clients' {@code doExecute}, the holder of an exchange's pooled connection, and the
 * status retry exec. Matched in relocated copies too (fat jars). AutoRetryHttpClient (deprecated since 4.3) is not
 * here: its retries run outside the client's {@code doExecute}.
 */
public final class Apache4Module implements ClientModule {

    public static final Target.Root ROOT = new Target.Root("org/apache/http/", "Apache HttpClient 4");
    private static final String DO_EXECUTE = "doExecute(Lorg/apache/http/HttpHost;Lorg/apache/http/HttpRequest;Lorg/apache/http/protocol/HttpContext;)"
            + "Lorg/apache/http/client/methods/CloseableHttpResponse;";

    @Override
    public Target[] targets() {
        return new Target[] {
            new Target("org.apache.http.impl.client.InternalHttpClient").advise("doExecute/3", "apache4.ExecuteAdvice").relocatable(ROOT, DO_EXECUTE),
            new Target("org.apache.http.impl.client.MinimalHttpClient").advise("doExecute/3", "apache4.ExecuteAdvice").relocatable(ROOT, DO_EXECUTE),
            new Target("org.apache.http.impl.client.AbstractHttpClient").advise("doExecute/3", "apache4.ExecuteAdvice").relocatable(ROOT, DO_EXECUTE),
            new Target("org.apache.http.impl.execchain.ConnectionHolder")
                    .advise("<init>", "apache4.LeaseAcquiredAdvice")
                    .advise("releaseConnection/1 abortConnection", "apache4.LeaseReleasedAdvice")
                    .relocatable(ROOT, "releaseConnection(Z)V", "abortConnection()V"),
            new Target("org.apache.http.client.methods.AbstractExecutionAwareRequest").advise("abort/0", "apache4.AbortAdvice")
                    .relocatable(ROOT, "abort()V", "isAborted()Z"),
            new Target("org.apache.http.impl.execchain.ServiceUnavailableRetryExec").advise("<init>/2", "apache4.RetryStrategyAdvice")
                    .relocatable(ROOT, "<init>(Lorg/apache/http/impl/execchain/ClientExecChain;Lorg/apache/http/client/ServiceUnavailableRetryStrategy;)V")};
    }

    @Override
    public Object[] hooks(ModuleContext context) {
        return new Object[] {new Apache4Calls(context.depth, context.selfGuarded)};
    }
}
