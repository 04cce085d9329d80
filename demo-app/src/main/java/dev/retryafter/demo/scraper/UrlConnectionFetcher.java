package dev.retryafter.demo.scraper;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.time.Duration;

/**
 * {@code HttpURLConnection}, the way the oldest scrapers fetch: status first, then the body (or the
 * error body) read to its end and closed, so the JDK keeps the connection alive.
 */
final class UrlConnectionFetcher implements Fetcher {

    private final int timeoutMillis;

    UrlConnectionFetcher(Duration timeout) {
        this.timeoutMillis = (int) timeout.toMillis();
    }

    @Override
    public int get(String url, String worker) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) new URL(url).openConnection();
        connection.setConnectTimeout(timeoutMillis);
        connection.setReadTimeout(timeoutMillis);
        connection.setRequestProperty(LegacyScraper.WORKER_HEADER, worker);
        int status = connection.getResponseCode();
        try (InputStream body = status < 400 ? connection.getInputStream() : connection.getErrorStream()) {
            if (body != null) {
                byte[] buffer = new byte[8192];
                while (body.read(buffer) >= 0) {
                    // dropped
                }
            }
        }
        return status;
    }

    @Override
    public void close() {
        // connections are the JDK's, kept alive in its cache
    }
}
