package dev.retryafter.demo.scraper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** {@code java.net.http.HttpClient}, with {@code send} or with {@code sendAsync}. */
final class JdkFetcher implements Fetcher {

    private final HttpClient client;
    private final boolean async;
    private final Duration timeout;

    JdkFetcher(boolean async, Duration timeout) {
        this.client = HttpClient.newBuilder().connectTimeout(timeout).build();
        this.async = async;
        this.timeout = timeout;
    }

    @Override
    public int get(String url, String worker) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(timeout)
                .header(LegacyScraper.WORKER_HEADER, worker).GET().build();
        if (!async) {
            return client.send(request, HttpResponse.BodyHandlers.ofString()).statusCode();
        }
        return AsyncExchange.awaited(client.sendAsync(request, HttpResponse.BodyHandlers.ofString()), timeout.toMillis()).statusCode();
    }

    @Override
    public void close() {
        // HttpClient is closeable only from Java 21; it stops with the JVM.
    }
}
