package dev.retryafter.it.apps.java8;

import dev.retryafter.demo.scraper.Fetcher;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.time.Duration;

/** A reactive client as a blocking scraper uses it: each record's {@code Mono} of its status, blocked on. */
abstract class BlockedMonoFetcher implements Fetcher {

    private final Duration timeout;

    BlockedMonoFetcher(Duration timeout) {
        this.timeout = timeout;
    }

    /** One GET of {@code url}, its body read: its status once the response is over. */
    abstract Mono<Integer> status(String url, String worker);

    @Override
    public final int get(String url, String worker) throws IOException {
        try {
            // A generous bound: the agent's waits come before the response, and the scraper's own timeout is per request.
            Integer status = status(url, worker).block(timeout.multipliedBy(10).plusSeconds(60));
            return status == null ? -1 : status;
        } catch (RuntimeException e) {
            throw new IOException(e);
        }
    }

    @Override
    public void close() {
    }
}
