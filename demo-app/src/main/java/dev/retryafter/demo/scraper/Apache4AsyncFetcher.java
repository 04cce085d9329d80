package dev.retryafter.demo.scraper;

import org.apache.http.HttpResponse;
import org.apache.http.client.methods.HttpGet;
import org.apache.http.impl.nio.client.CloseableHttpAsyncClient;
import org.apache.http.impl.nio.client.HttpAsyncClients;
import org.apache.http.util.EntityUtils;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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
        try {
            // The whole exchange, the agent's waits and retries included, may take longer than one request's timeout.
            HttpResponse response = client.execute(get, null).get(10 * timeoutMillis, TimeUnit.MILLISECONDS);
            if (response.getEntity() != null) {
                EntityUtils.consume(response.getEntity());
            }
            return response.getStatusLine().getStatusCode();
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
