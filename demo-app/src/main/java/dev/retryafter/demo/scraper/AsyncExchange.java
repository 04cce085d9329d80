package dev.retryafter.demo.scraper;

import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** An asynchronous client's response, waited for as a blocking scraper waits for it. */
final class AsyncExchange {

    private AsyncExchange() {
    }

    /**
     * Waits up to ten times one request's timeout, as the whole exchange, the agent's waits and retries included, may
     * take longer than one request. Its failure, or no response in time, is an {@link IOException}.
     */
    static <T> T awaited(Future<T> exchange, long timeoutMillis) throws IOException, InterruptedException {
        try {
            return exchange.get(10 * timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException ? (IOException) e.getCause() : new IOException(e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("no response in time", e);
        }
    }
}
