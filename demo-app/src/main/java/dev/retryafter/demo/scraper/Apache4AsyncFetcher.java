package dev.retryafter.demo.scraper;

import org.apache.http.HttpResponse;
import org.apache.http.client.methods.HttpGet;
import org.apache.http.impl.nio.client.CloseableHttpAsyncClient;
import org.apache.http.impl.nio.client.HttpAsyncClients;
import org.apache.http.util.EntityUtils;

import java.io.IOException;
import java.time.Duration;

/**
 * Apache HttpAsyncClient 4.1 as scrapers use it: one client built with its defaults, started once,
 * an {@code HttpGet} per record, {@code execute(get, null).get()}, the body read. No retry of its own.
 */
final class Apache4AsyncFetcher implements Fetcher {

    private final CloseableHttpAsyncClient client = HttpAsyncClients.createDefault();
    private final long timeoutMillis;

    Apache4AsyncFetcher(Duration timeout) {
        this.timeoutMillis = timeout.toMillis();
        client.start();
    }

    @Override
    public int get(String url, String worker) throws IOException, InterruptedException {
        HttpGet get = new HttpGet(url);
        get.setHeader(LegacyScraper.WORKER_HEADER, worker);
        HttpResponse response = AsyncExchange.awaited(client.execute(get, null), timeoutMillis);
        if (response.getEntity() != null) {
            EntityUtils.consume(response.getEntity());
        }
        return response.getStatusLine().getStatusCode();
    }

    @Override
    public void close() throws IOException {
        client.close();
    }
}
