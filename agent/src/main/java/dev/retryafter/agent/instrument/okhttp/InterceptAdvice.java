package dev.retryafter.agent.instrument.okhttp;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.RequestBody;
import okhttp3.Response;

import java.io.IOException;

/**
 * OkHttp's {@code RetryAndFollowUpInterceptor.intercept} (3.x, 4.x and 5.x alike): beneath the application's
 * interceptors and above OkHttp's own retries, redirects, authentication, cookies, cache and connections, so each
 * attempt runs all of OkHttp's machinery and the application's interceptors see one call. Hands the host over (with the
 * call, which may hold a turn its enqueue took: {@link OkHttpCalls#begin}), then each attempt's response to the one
 * blocking loop, and runs the body again, with the same chain, while it says so.
 */
public final class InterceptAdvice {

    private InterceptAdvice() {
    }

    @Advice.OnMethodEnter
    static Object enter(@Advice.Argument(0) Interceptor.Chain chain) throws IOException {
        HttpUrl url = chain.request().url();
        RequestBody body = chain.request().body();
        return AgentHooks.begin("okhttp", chain.call(), url.scheme(), url.host(), url.port(), body == null || !body.isOneShot());
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, repeatOn = Advice.OnNonDefaultValue.class)
    static boolean exit(@Advice.Enter Object call, @Advice.Return Response response, @Advice.Thrown Throwable thrown)
            throws IOException {
        return call != null && AgentHooks.respond("okhttp", call, response, response == null ? 0 : response.code(), thrown);
    }
}
