package dev.retryafter.demo.scraper;

import org.apache.commons.httpclient.HttpClient;
import org.apache.commons.httpclient.MultiThreadedHttpConnectionManager;
import org.apache.commons.httpclient.methods.GetMethod;

import java.io.IOException;
import java.time.Duration;

/**
 * Commons HttpClient 3.1 as old scrapers use it: one {@code HttpClient} on a {@code MultiThreadedHttpConnectionManager},
 * a {@code GetMethod} per record, {@code executeMethod}, the body read, {@code releaseConnection()} in {@code finally}.
 * Its own retry handler resends only on I/O errors, never on a refusal.
 */
final class CommonsHttp3Fetcher implements Fetcher {

    private final MultiThreadedHttpConnectionManager connections = new MultiThreadedHttpConnectionManager();
    private final HttpClient client;

    CommonsHttp3Fetcher(int poolSize, Duration timeout) {
        int millis = (int) timeout.toMillis();
        connections.getParams().setDefaultMaxConnectionsPerHost(poolSize);
        connections.getParams().setMaxTotalConnections(poolSize);
        connections.getParams().setConnectionTimeout(millis);
        connections.getParams().setSoTimeout(millis);
        client = new HttpClient(connections);
    }

    @Override
    public int get(String url, String worker) throws IOException {
        GetMethod get = new GetMethod(url);
        get.setRequestHeader(LegacyScraper.WORKER_HEADER, worker);
        try {
            int status = client.executeMethod(get);
            get.getResponseBody();
            return status;
        } finally {
            get.releaseConnection();
        }
    }

    @Override
    public void close() {
        connections.shutdown();
    }
}
