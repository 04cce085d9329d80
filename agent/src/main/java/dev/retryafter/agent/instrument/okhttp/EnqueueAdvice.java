package dev.retryafter.agent.instrument.okhttp;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.HttpUrl;
import okhttp3.Request;
import okhttp3.RequestBody;

/**
 * {@code RealCall.enqueue(Callback)}: a call whose host makes it wait is not handed to OkHttp's
 * dispatcher until its turn comes, so no dispatcher thread sits asleep for it; the agent then
 * enqueues it itself. A null callback is OkHttp's to refuse.
 */
public final class EnqueueAdvice {

    private EnqueueAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static boolean enter(@Advice.This Call call, @Advice.Argument(0) Callback callback) {
        if (callback == null) {
            return false;
        }
        Request request = call.request();
        HttpUrl url = request.url();
        RequestBody body = request.body();
        return AgentHooks.module("okhttp.enqueue",
                new Object[] {call, callback, url.scheme(), url.host(), url.port(), body == null || !body.isOneShot()}) != null;
    }
}
