package dev.retryafter.it.apps.java8;

import dev.retryafter.demo.scraper.LegacyScraper;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

import java.time.Duration;

/**
 * Spring's WebClient as scrapers use it, for the legacy scraper's {@code --client}: one client built with its defaults
 * (Reactor Netty beneath), {@code get().uri(url).exchangeToMono(...)} per record, its body read, blocked on. No retry of
 * its own. Java 8 bytecode: Spring 5.3 runs on 8 (6 needs 17); the calls made here are the same in both.
 */
public final class SpringWebClientFetcher extends BlockedMonoFetcher {

    private final WebClient client = WebClient.create();

    public SpringWebClientFetcher(Duration timeout) {
        super(timeout);
    }

    @Override
    Mono<Integer> status(String url, String worker) {
        return client.get().uri(url).header(LegacyScraper.WORKER_HEADER, worker)
                .exchangeToMono(response -> response.bodyToMono(String.class).defaultIfEmpty("").thenReturn(rawStatus(response)));
    }

    /** The status as an int in 5.3 and 6 alike: {@code statusCode()} returns another type in each. */
    @SuppressWarnings("removal")
    private static int rawStatus(ClientResponse response) {
        return response.rawStatusCode();
    }
}
