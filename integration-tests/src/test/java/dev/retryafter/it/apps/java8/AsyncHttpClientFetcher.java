package dev.retryafter.it.apps.java8;

import dev.retryafter.demo.scraper.Fetcher;
import dev.retryafter.demo.scraper.LegacyScraper;
import org.asynchttpclient.AsyncCompletionHandler;
import org.asynchttpclient.AsyncHttpClient;
import org.asynchttpclient.Dsl;
import org.asynchttpclient.Response;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * AsyncHttpClient (org.asynchttpclient, on Netty) as scrapers use it, for the legacy scraper's {@code --client}: one
 * client built with its defaults, {@code prepareGet(url).execute().get()} per record. No retry of its own. Java 8
 * bytecode: AsyncHttpClient 2 runs on 8 (3 needs 11); the calls made here are the same in both.
 */
public class AsyncHttpClientFetcher implements Fetcher {

    final AsyncHttpClient client = Dsl.asyncHttpClient();
    final long timeoutMillis;

    public AsyncHttpClientFetcher(Duration timeout) {
        this.timeoutMillis = timeout.toMillis();
    }

    @Override
    public int get(String url, String worker) throws IOException, InterruptedException {
        try {
            // A generous bound: the agent's waits come before the response, and the scraper's own timeout is per request.
            return status(url, worker).get(timeoutMillis * 10 + 60_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException ? (IOException) e.getCause() : new IOException(e.getCause());
        } catch (TimeoutException e) {
            throw new IOException(e);
        }
    }

    /** {@code execute()}: the client's own {@code AsyncCompletionHandlerBase} and {@code ListenableFuture}. */
    java.util.concurrent.Future<Integer> status(String url, String worker) {
        return client.prepareGet(url).setHeader(LegacyScraper.WORKER_HEADER, worker).execute().toCompletableFuture()
                .thenApply(Response::getStatusCode);
    }

    @Override
    public void close() throws IOException {
        client.close();
    }

    /** The same scraper with a handler of its own, {@code executeRequest(request, handler)}, and the future's listener. */
    public static final class WithHandler extends AsyncHttpClientFetcher {
        public WithHandler(Duration timeout) {
            super(timeout);
        }

        @Override
        java.util.concurrent.Future<Integer> status(String url, String worker) {
            java.util.concurrent.CompletableFuture<Integer> status = new java.util.concurrent.CompletableFuture<>();
            org.asynchttpclient.ListenableFuture<Integer> future = client.executeRequest(
                    Dsl.get(url).setHeader(LegacyScraper.WORKER_HEADER, worker).build(), new AsyncCompletionHandler<Integer>() {
                        @Override
                        public Integer onCompleted(Response response) {
                            return response.getStatusCode();
                        }
                    });
            future.addListener(() -> {
                try {
                    status.complete(future.get());
                } catch (ExecutionException e) {
                    status.completeExceptionally(e.getCause());
                } catch (InterruptedException e) {
                    status.completeExceptionally(e);
                }
            }, null);
            return status;
        }
    }
}
