package dev.retryafter.it.apps.java8;

import dev.retryafter.demo.scraper.Fetcher;
import dev.retryafter.demo.scraper.LegacyScraper;
import org.apache.commons.httpclient.HttpClient;
import org.apache.commons.httpclient.MultiThreadedHttpConnectionManager;
import org.apache.commons.httpclient.methods.GetMethod;

import java.io.IOException;
import java.time.Duration;

/**
 * Commons HttpClient 3.1 as old scrapers use it, for the legacy scraper's {@code --client}: one
 * {@code HttpClient} on a {@code MultiThreadedHttpConnectionManager}, a {@code GetMethod} per record,
 * {@code executeMethod}, the body read with {@code getResponseBody()}, {@code releaseConnection()} in
 * {@code finally}. No retry of its own. Java 8 bytecode: it runs on every JDK.
 */
public final class CommonsHttp3Fetcher implements Fetcher {

    private final MultiThreadedHttpConnectionManager connections = new MultiThreadedHttpConnectionManager();
    private final HttpClient client;

    public CommonsHttp3Fetcher(Duration timeout) {
        int millis = (int) timeout.toMillis();
        connections.getParams().setDefaultMaxConnectionsPerHost(8);
        connections.getParams().setMaxTotalConnections(8);
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
