package dev.retryafter.demo.scraper;

import org.asynchttpclient.AsyncHttpClient;
import org.asynchttpclient.Dsl;

import java.io.IOException;
import java.time.Duration;

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
        return AsyncExchange.awaited(client.prepareGet(url).setHeader(LegacyScraper.WORKER_HEADER, worker).execute(), timeoutMillis)
                .getStatusCode();
    }

    @Override
    public void close() throws IOException {
        client.close();
    }
}
