package dev.retryafter.it.apps.java8;

import dev.retryafter.demo.scraper.Fetcher;
import dev.retryafter.demo.scraper.LegacyScraper;
import reactor.netty.http.client.HttpClient;

import java.io.IOException;
import java.time.Duration;

/**
 * Reactor Netty's HttpClient 1.x as scrapers use it, for the legacy scraper's {@code --client}: one client built with its
 * defaults, {@code get().uri(url).responseSingle(...)} per record, its body read, blocked on. No retry of its own. Java 8
 * bytecode: Reactor Netty 1.0 and 1.1 run on 8; the calls made here are the same from 1.0 to 1.3.
 */
public final class ReactorNettyFetcher implements Fetcher {

    private final HttpClient client = HttpClient.create();
    private final Duration timeout;

    public ReactorNettyFetcher(Duration timeout) {
        this.timeout = timeout;
    }

    @Override
    public int get(String url, String worker) throws IOException {
        try {
            // A generous bound: the agent's waits come before the response, and the scraper's own timeout is per request.
            Integer status = client.headers(headers -> headers.set(LegacyScraper.WORKER_HEADER, worker)).get().uri(url)
                    .responseSingle((response, body) -> body.asString().defaultIfEmpty("").thenReturn(response.status().code()))
                    .block(timeout.multipliedBy(10).plusSeconds(60));
            return status == null ? -1 : status;
        } catch (RuntimeException e) {
            throw new IOException(e);
        }
    }

    @Override
    public void close() {
    }
}
