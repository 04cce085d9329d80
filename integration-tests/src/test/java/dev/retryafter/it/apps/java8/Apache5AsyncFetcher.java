package dev.retryafter.it.apps.java8;

import dev.retryafter.demo.scraper.Fetcher;
import dev.retryafter.demo.scraper.LegacyScraper;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Apache HttpAsyncClient 5 as scrapers use it, for the legacy scraper's {@code --client}: one client built
 * with its defaults (a retry strategy that honours {@code Retry-After} on 429 and 503 with no ceiling), started
 * once, a {@code SimpleHttpRequest} per record, {@code execute(request, null).get()}. No retry of its own.
 * Java 8 bytecode: it runs on every JDK.
 */
public final class Apache5AsyncFetcher implements Fetcher {

    private final CloseableHttpAsyncClient client = HttpAsyncClients.createDefault();
    private final long timeoutMillis;

    public Apache5AsyncFetcher(Duration timeout) {
        this.timeoutMillis = timeout.toMillis();
        client.start();
    }

    @Override
    public int get(String url, String worker) throws IOException, InterruptedException {
        SimpleHttpRequest get = SimpleRequestBuilder.get(url).setHeader(LegacyScraper.WORKER_HEADER, worker).build();
        try {
            // A generous bound: the agent's waits come before the response, and the scraper's own timeout is per request.
            return client.execute(get, null).get(timeoutMillis * 10 + 60_000, TimeUnit.MILLISECONDS).getCode();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException ? (IOException) e.getCause() : new IOException(e.getCause());
        } catch (TimeoutException e) {
            throw new IOException(e);
        }
    }

    @Override
    public void close() {
        client.close(org.apache.hc.core5.io.CloseMode.GRACEFUL);
    }
}
