package dev.retryafter.demo.scraper;

import org.asynchttpclient.AsyncHttpClient;
import org.asynchttpclient.Dsl;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * AsyncHttpClient 2 ({@code org.asynchttpclient}, on Netty) as scrapers use it: one client built with its defaults,
 * {@code prepareGet(url).execute().get()} per record, the body read with the response. No retry of its own.
 */
final class AsyncHttpClientFetcher implements Fetcher {

    private final AsyncHttpClient client = Dsl.asyncHttpClient();
    private final long timeoutMillis;

    AsyncHttpClientFetcher(Duration timeout) {
        this.timeoutMillis = timeout.toMillis();
    }

    @Override
    public int get(String url, String worker) throws IOException, InterruptedException {
        try {
            // The whole exchange, the agent's waits and retries included, may take longer than one request's timeout.
            return client.prepareGet(url).setHeader(LegacyScraper.WORKER_HEADER, worker).execute()
                    .get(10 * timeoutMillis, TimeUnit.MILLISECONDS).getStatusCode();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException ? (IOException) e.getCause() : new IOException(e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("no response in time", e);
        }
    }

    @Override
    public void close() throws IOException {
        client.close();
    }
}
