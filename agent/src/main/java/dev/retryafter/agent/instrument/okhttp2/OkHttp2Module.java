package dev.retryafter.agent.instrument.okhttp2;

import dev.retryafter.agent.instrument.ClientModule;
import dev.retryafter.agent.instrument.ModuleContext;
import dev.retryafter.agent.instrument.Target;

/**
 * OkHttp 2 ({@code com.squareup.okhttp}; 2.7.5 tested): the call's {@code getResponse}, where one request's attempt runs
 * with OkHttp's own redirects, authentication and connection recovery, beneath the application's interceptors; and the
 * call's {@code cancel()}. Its {@code execute()} and the dispatcher's run of an {@code enqueue()} both come through it.
 * Its {@code OkUrlFactory}'s connections drive OkHttp's engine themselves: their {@code getResponse()}
 * ({@link OkUrlFactoryConnections}). Matched in relocated copies too.
 */
public final class OkHttp2Module implements ClientModule {

    /** Under a package ending {@code okhttp/} only: OkHttp 3.0-3.3's {@code okhttp3.internal.huc.HttpURLConnectionImpl} has 2.7's shape. */
    public static final Target.Root ROOT = new Target.Root("com/squareup/okhttp/", "OkHttp 2").onlyUnderItsLastName();

    @Override
    public Target[] targets() {
        return new Target[] {
            new Target("com.squareup.okhttp.Call").advise("getResponse/2", "okhttp2.ResponseAdvice").advise("cancel/0", "okhttp2.CancelAdvice")
                    .relocatable(ROOT, "getResponse(Lcom/squareup/okhttp/Request;Z)Lcom/squareup/okhttp/Response;", "cancel()V"),
            new Target("com.squareup.okhttp.internal.huc.HttpURLConnectionImpl").advise("getResponse/0", "okhttp2.UrlConnectionAdvice")
                    .advise("disconnect/0", "okhttp2.DisconnectAdvice")
                    .relocatable(ROOT, "getResponse()Lcom/squareup/okhttp/internal/http/HttpEngine;", "disconnect()V")};
    }

    @Override
    public Object[] hooks(ModuleContext context) {
        return new Object[] {new OkHttp2Calls(), new OkUrlFactoryConnections()};
    }
}
