package dev.retryafter.demo.scraper;

import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.core5.io.CloseMode;

import java.io.IOException;
import java.time.Duration;

/**
 * Apache HttpAsyncClient 5 as scrapers use it: one client built with its defaults (a retry strategy
 * that honours {@code Retry-After} on 429 and 503 with no ceiling), started once, a
 * {@code SimpleHttpRequest} per record, {@code execute(request, null).get()}.
 */
final class Apache5AsyncFetcher implements Fetcher {

    private final CloseableHttpAsyncClient client = HttpAsyncClients.createDefault();
    private final long timeoutMillis;

    Apache5AsyncFetcher(Duration timeout) {
        this.timeoutMillis = timeout.toMillis();
        client.start();
    }

    @Override
    public int get(String url, String worker) throws IOException, InterruptedException {
        SimpleHttpRequest get = SimpleRequestBuilder.get(url).setHeader(LegacyScraper.WORKER_HEADER, worker).build();
        return AsyncExchange.awaited(client.execute(get, null), timeoutMillis).getCode();
    }

    @Override
    public void close() {
        client.close(CloseMode.GRACEFUL);
    }
}
