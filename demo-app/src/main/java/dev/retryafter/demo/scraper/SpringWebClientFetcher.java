package dev.retryafter.demo.scraper;

import org.springframework.web.reactive.function.client.WebClient;

import java.io.IOException;
import java.time.Duration;

/**
 * Spring's WebClient as scrapers use it: one client built with its defaults (Reactor Netty beneath),
 * {@code get().uri(url).exchangeToMono(...)} per record, its body read, blocked on. No retry of its own.
 * Built for Java 17, as Spring 6 is; the rest of the scraper for 8: loaded only when chosen.
 */
final class SpringWebClientFetcher implements Fetcher {

    private final WebClient client = WebClient.create();
    private final Duration timeout;

    SpringWebClientFetcher(Duration timeout) {
        this.timeout = timeout;
    }

    @Override
    public int get(String url, String worker) throws IOException {
        try {
            // The whole exchange, the agent's waits and retries included, may take longer than one request's timeout.
            Integer status = client.get().uri(url).header(LegacyScraper.WORKER_HEADER, worker)
                    .exchangeToMono(response -> response.bodyToMono(String.class).defaultIfEmpty("")
                            .thenReturn(response.statusCode().value()))
                    .block(timeout.multipliedBy(10));
            return status == null ? -1 : status;
        } catch (RuntimeException e) {
            throw new IOException(e);
        }
    }

    @Override
    public void close() {
        // Reactor Netty's connections and event loops are shared, and stop with the JVM.
    }
}
