package dev.retryafter.agent.instrument.okhttp;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import okhttp3.Headers;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

import java.io.IOException;

/**
 * OkHttp's {@code RetryAndFollowUpInterceptor.intercept} (3.x, 4.x and 5.x alike): the agent's loop
 * sits here, just beneath the application's interceptors and above OkHttp's own retries, redirects,
 * authentication, cookies, cache and connections. The application's interceptors see one call and
 * its final response, as they do for a redirect; each attempt runs all of OkHttp's own machinery.
 * The loop is {@code repeatOn}: the body runs again, with the same chain, while the exit says so.
 * A refused response is closed before the wait, so its connection goes back to the pool.
 * Inlined into OkHttp: it may use OkHttp's types (the API all three versions share) and the bootstrap hooks.
 */
public final class InterceptAdvice {

    private InterceptAdvice() {
    }

    @Advice.OnMethodEnter
    static Object enter(@Advice.Argument(0) Interceptor.Chain chain) throws IOException {
        Request request = chain.request();
        HttpUrl url = request.url();
        RequestBody body = request.body();
        return AgentHooks.okhttpBegin(chain.call(), url.scheme(), url.host(), url.port(), body == null || !body.isOneShot());
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, repeatOn = Advice.OnNonDefaultValue.class)
    static boolean exit(@Advice.Enter Object call, @Advice.Return Response response, @Advice.Thrown Throwable thrown)
            throws IOException {
        if (call == null) {
            return false;
        }
        if (thrown != null || response == null) {
            AgentHooks.failed(call);
            return false;
        }
        int status = response.code();
        if (AgentHooks.wantsHeaders(call, status)) {
            try {
                Headers headers = response.headers();
                for (int i = 0, n = headers.size(); i < n; i++) {
                    AgentHooks.header(call, headers.name(i), headers.value(i));
                }
            } catch (RuntimeException unread) {
                // decided on the status and Retry-After alone
            }
        }
        if (!AgentHooks.shouldRetry(call, status, status >= AgentHooks.LOWEST_REFUSAL ? response.header("Retry-After") : null)) {
            return false;
        }
        AgentHooks.resend(call, response, null, null); // OkHttp's close discards the rest of the body itself
        return true;
    }
}
