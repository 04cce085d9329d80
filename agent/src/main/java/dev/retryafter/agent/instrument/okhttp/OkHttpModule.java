package dev.retryafter.agent.instrument.okhttp;

import dev.retryafter.agent.instrument.ClientModule;
import dev.retryafter.agent.instrument.ModuleContext;
import dev.retryafter.agent.instrument.Target;

/**
 * OkHttp 3, 4 and 5: the retry-and-follow-up interceptor; a call's cancel (3.14's call timeout cancels its
 * transmitter instead); and the async call's enqueue and end: its run's, or, for a call the dispatcher's executor
 * rejected (shut down), which never runs, the dispatcher's ({@code finished}, 3.x and 4.x) or its own
 * ({@code failRejected}, 5.x). OkHttp 3.x names its call {@code okhttp3.RealCall}; 4.x and 5.x,
 * {@code okhttp3.internal.connection.RealCall}. Matched in relocated copies too.
 */
public final class OkHttpModule implements ClientModule {

    public static final Target.Root ROOT = new Target.Root("okhttp3/", "OkHttp");

    @Override
    public Target[] targets() {
        return new Target[] {
            new Target("okhttp3.internal.http.RetryAndFollowUpInterceptor")
                    .advise("intercept/1", "okhttp.InterceptAdvice")
                    .advise("followUpRequest", "okhttp.FollowUpAdvice")
                    .relocatable(ROOT, "intercept(Lokhttp3/Interceptor$Chain;)Lokhttp3/Response;"),
            new Target("okhttp3.RealCall").advise("enqueue/1", "okhttp.EnqueueAdvice").advise("cancel/0", "okhttp.CancelAdvice")
                    .relocatable(ROOT, "enqueue(Lokhttp3/Callback;)V"),
            new Target("okhttp3.internal.connection.RealCall").advise("enqueue/1", "okhttp.EnqueueAdvice")
                    .advise("cancel/0", "okhttp.CancelAdvice").relocatable(ROOT, "enqueue(Lokhttp3/Callback;)V"),
            new Target("okhttp3.internal.connection.Transmitter").advise("cancel/0", "okhttp.TransmitterCancelAdvice")
                    .relocatable(ROOT, "cancel()V", "isCanceled()Z", "callStart()V"),
            new Target("okhttp3.RealCall$AsyncCall").advise("execute/0", "okhttp.AsyncDoneAdvice").relocatable(ROOT, "execute()V"),
            new Target("okhttp3.internal.connection.RealCall$AsyncCall").advise("run/0 failRejected$okhttp/1", "okhttp.AsyncDoneAdvice").relocatable(ROOT, "run()V"),
            new Target("okhttp3.Dispatcher").advise("finished/1 finished$okhttp/1", "okhttp.DispatcherFinishedAdvice")
                    .relocatable(ROOT, "executorService()Ljava/util/concurrent/ExecutorService;", "setMaxRequestsPerHost(I)V")};
    }

    @Override
    public Object[] hooks(ModuleContext context) {
        return new Object[] {new OkHttpCalls(context.engine, context.depth)};
    }
}
