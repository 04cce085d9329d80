package dev.retryafter.it.apps;

import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.demo.scraper.Fetcher;
import org.jsoup.Connection;
import org.jsoup.Jsoup;

import java.io.IOException;
import java.time.Duration;

/**
 * jsoup on its {@code HttpURLConnection} transport: its only one on Java 8, and the one it falls
 * back to whenever {@code java.net.http} is not used (this property, a custom SSL socket factory).
 */
public final class JsoupFetcher implements Fetcher {

    private final int timeoutMillis;

    public JsoupFetcher(Duration timeout) {
        System.setProperty("jsoup.useHttpClient", "false");
        this.timeoutMillis = (int) timeout.toMillis();
    }

    @Override
    public int get(String url, String worker) throws IOException {
        Connection.Response response = Jsoup.connect(url).header(PortalServer.WORKER_HEADER, worker)
                .ignoreHttpErrors(true).ignoreContentType(true).timeout(timeoutMillis).execute();
        response.bodyAsBytes();
        return response.statusCode();
    }

    @Override
    public void close() {
    }
}
