package dev.retryafter.agent.instrument.urlconnection;

import dev.retryafter.agent.instrument.ClientModule;
import dev.retryafter.agent.instrument.ModuleContext;
import dev.retryafter.agent.instrument.Target;

/** HttpURLConnection, HttpsURLConnection's delegate included: the same methods from Java 8 to 25. */
public final class UrlConnectionModule implements ClientModule {

    @Override
    public Target[] targets() {
        return new Target[] {
            new Target("sun.net.www.protocol.http.HttpURLConnection")
                    .advise("plainConnect/0", "urlconnection.ConnectAdvice")
                    .advise("followRedirect/0", "urlconnection.ResponseAdvice")
                    .advise("disconnect/0", "urlconnection.DisconnectAdvice"),
            new Target("sun.net.www.http.HttpClient").advise("finished/0 closeServer/0", "urlconnection.ClientDoneAdvice"),
            new Target("sun.net.www.protocol.https.HttpsClient").advise("closeServer/0", "urlconnection.ClientDoneAdvice")};
    }

    @Override
    public Object[] hooks(ModuleContext context) {
        return new Object[] {new UrlConnectionExchanges(context.engine, context.depth)};
    }
}
