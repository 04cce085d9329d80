package dev.retryafter.demo.scraper;

import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Jetty HttpClient 12, its blocking {@code send()}: one client, started once, a request per record.
 * Built for Java 17, as Jetty 12 is; the rest of the scraper for 8: loaded only when chosen.
 */
final class JettyFetcher implements Fetcher {

    private final HttpClient client = new HttpClient();
    private final long timeoutMillis;

    JettyFetcher(Duration timeout) throws Exception {
        this.timeoutMillis = timeout.toMillis();
        client.setConnectTimeout(timeoutMillis);
        client.start();
    }

    @Override
    public int get(String url, String worker) throws IOException, InterruptedException {
        try {
            // The whole exchange, the agent's waits and retries included, may take longer than one request's timeout.
            ContentResponse response = client.newRequest(url).headers(headers -> headers.put(LegacyScraper.WORKER_HEADER, worker))
                    .timeout(10 * timeoutMillis, TimeUnit.MILLISECONDS).send();
            return response.getStatus();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException ? (IOException) e.getCause() : new IOException(e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("no response in time", e);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            client.stop();
        } catch (Exception e) {
            throw new IOException(e);
        }
    }
}
