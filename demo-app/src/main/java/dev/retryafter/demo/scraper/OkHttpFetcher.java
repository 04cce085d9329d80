package dev.retryafter.demo.scraper;

import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * OkHttp, with {@code execute()} or {@code enqueue()}. Uses only the API that 3.14, 4.x and 5.x
 * share, so the same class runs on each: the tests swap the OkHttp jars under it.
 */
final class OkHttpFetcher implements Fetcher {

    private final OkHttpClient client;
    private final boolean async;
    private final Duration timeout;

    OkHttpFetcher(boolean async, Duration timeout) {
        this.client = new OkHttpClient.Builder()
                .connectTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .readTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .build();
        this.async = async;
        this.timeout = timeout;
    }

    @Override
    public int get(String url, String worker) throws IOException, InterruptedException {
        Request request = new Request.Builder().url(url).header(LegacyScraper.WORKER_HEADER, worker).build();
        if (!async) {
            try (Response response = client.newCall(request).execute()) {
                return drained(response);
            }
        }
        CompletableFuture<Integer> status = new CompletableFuture<>();
        client.newCall(request).enqueue(new Callback() {
            @Override
            public void onFailure(Call call, IOException e) {
                status.completeExceptionally(e);
            }

            @Override
            public void onResponse(Call call, Response response) {
                try (Response r = response) {
                    status.complete(drained(r));
                } catch (IOException | RuntimeException e) {
                    status.completeExceptionally(e);
                }
            }
        });
        return AsyncExchange.awaited(status, timeout.toMillis());
    }

    private static int drained(Response response) throws IOException {
        ResponseBody body = response.body();
        if (body != null) {
            body.bytes();
        }
        return response.code();
    }

    @Override
    public void close() {
        client.dispatcher().executorService().shutdown();
        client.connectionPool().evictAll();
    }
}
