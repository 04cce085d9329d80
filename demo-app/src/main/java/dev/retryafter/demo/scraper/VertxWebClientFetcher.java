package dev.retryafter.demo.scraper;

import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Vert.x WebClient 4 as scrapers use it: one Vert.x and one client built with their defaults, {@code getAbs(url).send()}
 * per record (the body buffered with the response), its future waited on. No retry of its own.
 */
final class VertxWebClientFetcher implements Fetcher {

    private final Vertx vertx = Vertx.vertx();
    private final WebClient client = WebClient.create(vertx);
    private final long timeoutMillis;

    VertxWebClientFetcher(Duration timeout) {
        this.timeoutMillis = timeout.toMillis();
    }

    @Override
    public int get(String url, String worker) throws IOException, InterruptedException {
        return AsyncExchange.awaited(client.getAbs(url).putHeader(LegacyScraper.WORKER_HEADER, worker).send().toCompletionStage()
                .toCompletableFuture(), timeoutMillis).statusCode();
    }

    @Override
    public void close() throws IOException {
        client.close();
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new IOException(e);
        }
    }
}
