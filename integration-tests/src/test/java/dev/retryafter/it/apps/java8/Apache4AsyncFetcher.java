package dev.retryafter.it.apps.java8;

import dev.retryafter.demo.scraper.Fetcher;
import dev.retryafter.demo.scraper.LegacyScraper;
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
 * Apache HttpAsyncClient 4.1 as scrapers use it, for the legacy scraper's {@code --client}: one client built with
 * its defaults, started once, an {@code HttpGet} per record, {@code execute(get, null).get()}, the body read. No
 * retry of its own. Java 8 bytecode: it runs on every JDK.
 */
public final class Apache4AsyncFetcher implements Fetcher {

    private final CloseableHttpAsyncClient client = HttpAsyncClients.createDefault();
    private final long timeoutMillis;

    public Apache4AsyncFetcher(Duration timeout) {
        this.timeoutMillis = timeout.toMillis();
        client.start();
    }

    @Override
    public int get(String url, String worker) throws IOException, InterruptedException {
        HttpGet get = new HttpGet(url);
        get.setHeader(LegacyScraper.WORKER_HEADER, worker);
        try {
            // A generous bound: the agent's waits come before the response, and the scraper's own timeout is per request.
            HttpResponse response = client.execute(get, null).get(timeoutMillis * 10 + 60_000, TimeUnit.MILLISECONDS);
            if (response.getEntity() != null) {
                EntityUtils.consume(response.getEntity());
            }
            return response.getStatusLine().getStatusCode();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException ? (IOException) e.getCause() : new IOException(e.getCause());
        } catch (TimeoutException e) {
            throw new IOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        client.close();
    }
}
