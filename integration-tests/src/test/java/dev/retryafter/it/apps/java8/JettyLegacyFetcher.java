package dev.retryafter.it.apps.java8;

import dev.retryafter.demo.scraper.Fetcher;
import dev.retryafter.demo.scraper.LegacyScraper;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;

/**
 * Jetty HttpClient 9.4, 10 or 11 as scrapers use it, for the legacy scraper's {@code --client}: one client, started
 * once, {@code newRequest(url).send()} per record. No retry of its own. Java 8 bytecode.
 */
public class JettyLegacyFetcher implements Fetcher {

    private final JettyLegacyClient client;

    public JettyLegacyFetcher(Duration timeout) throws Exception {
        client = new JettyLegacyClient();
    }

    @Override
    public int get(String url, String worker) throws IOException, InterruptedException {
        try {
            return JettyLegacyClient.status(send(client, client.request(url, LegacyScraper.WORKER_HEADER, worker)));
        } catch (InterruptedException | IOException e) {
            throw e;
        } catch (ExecutionException e) {
            throw new IOException(e.getCause());
        } catch (Exception e) {
            throw new IOException(e);
        }
    }

    /** {@code send()}. */
    Object send(JettyLegacyClient jetty, Object request) throws Exception {
        return jetty.send(request);
    }

    @Override
    public void close() throws IOException {
        try {
            client.close();
        } catch (Exception e) {
            throw new IOException(e);
        }
    }

    /** The same scraper on {@code send(listener)}: Jetty's own {@code FutureResponseListener}. */
    public static final class WithListener extends JettyLegacyFetcher {
        public WithListener(Duration timeout) throws Exception {
            super(timeout);
        }

        @Override
        Object send(JettyLegacyClient jetty, Object request) throws Exception {
            return jetty.sendWithListener(request);
        }
    }
}
