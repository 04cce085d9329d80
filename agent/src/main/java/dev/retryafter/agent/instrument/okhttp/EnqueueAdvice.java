package dev.retryafter.agent.instrument.okhttp;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import okhttp3.Call;
import okhttp3.HttpUrl;
import okhttp3.RequestBody;

/**
 * {@code RealCall.enqueue(Callback)}: a call whose host makes it wait is not handed to OkHttp's
 * dispatcher until its turn comes, so no dispatcher thread sits asleep for it; the agent then
 * enqueues it itself ({@link OkHttpCalls#enqueue}; a null callback is OkHttp's to refuse).
 */
public final class EnqueueAdvice {

    private EnqueueAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static boolean enter(@Advice.This Call call, @Advice.Argument(0) Object callback) {
        HttpUrl url = call.request().url();
        RequestBody body = call.request().body();
        return AgentHooks.module(OkHttpCalls.ENQUEUE,
                new Object[] {call, callback, url.scheme(), url.host(), url.port(), body == null || !body.isOneShot(), call.isExecuted()}) != null;
    }
}
