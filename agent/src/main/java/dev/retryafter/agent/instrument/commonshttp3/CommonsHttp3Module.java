package dev.retryafter.agent.instrument.commonshttp3;

import dev.retryafter.agent.instrument.ClientModule;
import dev.retryafter.agent.instrument.ModuleContext;
import dev.retryafter.agent.instrument.Target;

/** Commons HttpClient 3: every {@code executeMethod} overload calls the three-argument one; a method holds its connection. */
public final class CommonsHttp3Module implements ClientModule {

    @Override
    public Target[] targets() {
        return new Target[] {
            new Target("org.apache.commons.httpclient.HttpClient").advise("executeMethod/3", "commonshttp3.ExecuteAdvice"),
            new Target("org.apache.commons.httpclient.HttpMethodBase")
                    .advise("execute/2", "commonshttp3.LeaseAcquiredAdvice")
                    .advise("ensureConnectionRelease/0", "commonshttp3.LeaseReleasedAdvice")
                    .advise("abort/0", "commonshttp3.AbortAdvice")};
    }

    @Override
    public Object[] hooks(ModuleContext context) {
        return new Object[] {new CommonsHttp3Calls()};
    }
}
