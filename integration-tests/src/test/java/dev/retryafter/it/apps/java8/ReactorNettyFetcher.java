package dev.retryafter.it.apps.java8;

import dev.retryafter.demo.scraper.LegacyScraper;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

import java.time.Duration;

/**
 * Reactor Netty's HttpClient 1.x as scrapers use it, for the legacy scraper's {@code --client}: one client built with its
 * defaults, {@code get().uri(url).responseSingle(...)} per record, its body read, blocked on. No retry of its own. Java 8
 * bytecode: Reactor Netty 1.0 and 1.1 run on 8; the calls made here are the same from 1.0 to 1.3.
 */
public final class ReactorNettyFetcher extends BlockedMonoFetcher {

    private final HttpClient client = HttpClient.create();

    public ReactorNettyFetcher(Duration timeout) {
        super(timeout);
    }

    @Override
    Mono<Integer> status(String url, String worker) {
        return client.headers(headers -> headers.set(LegacyScraper.WORKER_HEADER, worker)).get().uri(url)
                .responseSingle((response, body) -> body.asString().defaultIfEmpty("").thenReturn(response.status().code()));
    }
}
