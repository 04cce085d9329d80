package dev.retryafter.it.apps.java8;

import dev.retryafter.demo.scraper.Fetcher;
import dev.retryafter.demo.scraper.LegacyScraper;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Vert.x WebClient 4 or 5 as scrapers use it, for the legacy scraper's {@code --client}: one Vert.x and one client built
 * with their defaults, {@code getAbs(url).send()} per record, its future waited on. No retry of its own. Java 8 bytecode:
 * Vert.x 4 runs on 8 (5 needs 11); the calls made here are the same in both.
 */
public final class VertxWebClientFetcher implements Fetcher {

    private final Vertx vertx = Vertx.vertx();
    private final WebClient client = WebClient.create(vertx);
    private final long timeoutMillis;

    public VertxWebClientFetcher(Duration timeout) {
        this.timeoutMillis = timeout.toMillis();
    }

    @Override
    public int get(String url, String worker) throws IOException, InterruptedException {
        try {
            // A generous bound: the agent's waits come before the response, and the scraper's own timeout is per request.
            return client.getAbs(url).putHeader(LegacyScraper.WORKER_HEADER, worker).send().toCompletionStage().toCompletableFuture()
                    .get(timeoutMillis * 10 + 60_000, TimeUnit.MILLISECONDS).statusCode();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException ? (IOException) e.getCause() : new IOException(e.getCause());
        } catch (TimeoutException e) {
            throw new IOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        client.close();
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new IOException(e);
        }
    }
}
