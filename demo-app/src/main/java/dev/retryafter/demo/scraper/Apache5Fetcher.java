package dev.retryafter.demo.scraper;

import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.util.Timeout;

import java.io.IOException;
import java.time.Duration;

/**
 * Apache HttpClient 5 classic. Built with its defaults, which include a retry strategy that
 * honours {@code Retry-After} on 429 and 503 with no ceiling: that is what an unchanged scraper gets.
 */
final class Apache5Fetcher implements Fetcher {

    private final CloseableHttpClient client;

    Apache5Fetcher(int poolSize, Duration timeout, boolean createDefault) {
        if (createDefault) {
            client = HttpClients.createDefault();
        } else {
            Timeout t = Timeout.ofMilliseconds(timeout.toMillis());
            client = HttpClients.custom()
                    .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                            .setMaxConnTotal(poolSize).setMaxConnPerRoute(poolSize).build())
                    .setDefaultRequestConfig(RequestConfig.custom().setConnectionRequestTimeout(t).setResponseTimeout(t).build())
                    .build();
        }
    }

    @Override
    public int get(String url, String worker) throws IOException {
        HttpGet get = new HttpGet(url);
        get.setHeader(LegacyScraper.WORKER_HEADER, worker);
        return client.execute(get, response -> {
            EntityUtils.consume(response.getEntity());
            return response.getCode();
        });
    }

    @Override
    public void close() throws IOException {
        client.close();
    }
}
