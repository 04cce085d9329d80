package dev.retryafter.it.attached;

import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** OkHttp 4.12 {@code enqueue()}: the same suite through the dispatcher. */
class OkHttpAsyncAttachedTest extends OkHttpAttachedTest {

    @Override
    int send(OkHttpClient client, Request request) throws Exception {
        return enqueue(client.newCall(request)).get(30, TimeUnit.SECONDS);
    }

    private static CompletableFuture<Integer> enqueue(Call call) {
        CompletableFuture<Integer> status = new CompletableFuture<>();
        call.enqueue(new Callback() {
            @Override
            public void onFailure(Call failed, IOException e) {
                status.completeExceptionally(e);
            }

            @Override
            public void onResponse(Call answered, Response response) throws IOException {
                try (Response r = response) {
                    if (answered != call) {
                        status.completeExceptionally(new AssertionError("the callback was handed another call"));
                        return;
                    }
                    r.body().bytes();
                    status.complete(r.code());
                }
            }
        });
        return status;
    }
}
