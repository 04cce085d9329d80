package dev.retryafter.demo.scraper;

import java.io.IOException;

/** One HTTP client, used the plain way: one GET, its status back. No retries: that is the point. */
public interface Fetcher extends AutoCloseable {

    /** GETs {@code url} and returns the status; the body is read and dropped. */
    int get(String url, String worker) throws IOException, InterruptedException;

    @Override
    void close() throws IOException;
}
