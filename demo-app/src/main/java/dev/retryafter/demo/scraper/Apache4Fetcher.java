package dev.retryafter.demo.scraper;

import org.apache.http.Header;
import org.apache.http.HttpResponse;
import org.apache.http.client.ServiceUnavailableRetryStrategy;
import org.apache.http.client.config.RequestConfig;
import org.apache.http.client.methods.CloseableHttpResponse;
import org.apache.http.client.methods.HttpGet;
import org.apache.http.impl.client.CloseableHttpClient;
import org.apache.http.impl.client.DefaultHttpClient;
import org.apache.http.impl.client.HttpClientBuilder;
import org.apache.http.impl.conn.PoolingHttpClientConnectionManager;
import org.apache.http.protocol.HttpContext;
import org.apache.http.util.EntityUtils;

import java.io.IOException;
import java.time.Duration;

/**
 * Apache HttpClient 4: the builder's client, optionally with a retry strategy of the application's
 * own that honours {@code Retry-After} literally (as Maven's resolver does), or the deprecated
 * {@code DefaultHttpClient} many old scrapers still construct.
 */
final class Apache4Fetcher implements Fetcher {

    private final CloseableHttpClient client;

    @SuppressWarnings("deprecation") // DefaultHttpClient: exactly what old scrapers use
    Apache4Fetcher(int poolSize, Duration timeout, boolean literalRetryStrategy, boolean legacyClient) {
        if (legacyClient) {
            client = new DefaultHttpClient();
            return;
        }
        int millis = (int) timeout.toMillis();
        PoolingHttpClientConnectionManager pool = new PoolingHttpClientConnectionManager();
        pool.setMaxTotal(poolSize);
        pool.setDefaultMaxPerRoute(poolSize);
        HttpClientBuilder builder = HttpClientBuilder.create().setConnectionManager(pool)
                .setDefaultRequestConfig(RequestConfig.custom().setConnectionRequestTimeout(millis)
                        .setConnectTimeout(millis).setSocketTimeout(millis).build());
        if (literalRetryStrategy) {
            builder.setServiceUnavailableRetryStrategy(new LiteralRetryAfterStrategy());
        }
        client = builder.build();
    }

    @Override
    public int get(String url, String worker) throws IOException {
        HttpGet get = new HttpGet(url);
        get.setHeader(LegacyScraper.WORKER_HEADER, worker);
        try (CloseableHttpResponse response = client.execute(get)) {
            EntityUtils.consume(response.getEntity());
            return response.getStatusLine().getStatusCode();
        }
    }

    @Override
    public void close() throws IOException {
        client.close();
    }

    /** Retries 429 and 503 up to five times, waiting exactly what Retry-After says, as the RFC reads. */
    static final class LiteralRetryAfterStrategy implements ServiceUnavailableRetryStrategy {
        private final ThreadLocal<Long> interval = ThreadLocal.withInitial(() -> 0L);

        @Override
        public boolean retryRequest(HttpResponse response, int executionCount, HttpContext context) {
            int status = response.getStatusLine().getStatusCode();
            if ((status != 429 && status != 503) || executionCount > 5) {
                return false;
            }
            Header header = response.getFirstHeader("Retry-After");
            long seconds = 0;
            try {
                seconds = header == null ? 0 : Long.parseLong(header.getValue().trim());
            } catch (NumberFormatException ignored) {
                // not a number: retry at once
            }
            interval.set(seconds * 1000);
            return true;
        }

        @Override
        public long getRetryInterval() {
            return interval.get();
        }
    }
}
