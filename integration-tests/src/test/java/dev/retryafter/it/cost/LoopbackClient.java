package dev.retryafter.it.cost;

import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.io.entity.EntityUtils;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

/**
 * The clients whose cost is measured, as a child JVM uses them: one GET, the body read in full, the
 * status returned. Threadsafe. Each client is a class of its own, so a child JVM loads (and its class
 * path needs) only the one it runs.
 */
interface LoopbackClient extends AutoCloseable {

    String JDK = "jdk";
    String APACHE5 = "apache5";
    String APACHE4 = "apache4";
    List<String> ALL = List.of(JDK, APACHE5, APACHE4);

    int get() throws IOException, InterruptedException;

    @Override
    void close() throws IOException;

    /** {@code connections}: the pool size, one per thread, so no thread queues for a connection. */
    static LoopbackClient open(String name, URI url, int connections) {
        switch (name) {
            case JDK:
                return new JdkSend(url);
            case APACHE5:
                return new Apache5(url, connections);
            case APACHE4:
                return new Apache4(url, connections);
            default:
                throw new IllegalArgumentException("unknown client " + name + "; expected one of " + ALL);
        }
    }

    /**
     * Jar file name prefixes a child JVM needs on its class path for {@code name}, besides this
     * module's test classes: the client and what it depends on at run time.
     */
    static List<String> jarPrefixes(String name) {
        switch (name) {
            case JDK:
                return List.of();
            case APACHE5:
                return List.of("httpclient5", "httpcore5", "slf4j-api");
            case APACHE4:
                return List.of("httpclient-4", "httpcore-4", "commons-logging", "commons-codec");
            default:
                throw new IllegalArgumentException("unknown client " + name + "; expected one of " + ALL);
        }
    }

    /** {@code HttpClient.send}; HTTP/1.1, since the loopback server speaks nothing else and an h2c upgrade offer per request would be noise. */
    final class JdkSend implements LoopbackClient {
        private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        private final HttpRequest request;

        JdkSend(URI url) {
            request = HttpRequest.newBuilder(url).GET().build();
        }

        @Override
        public int get() throws IOException, InterruptedException {
            return client.send(request, HttpResponse.BodyHandlers.ofByteArray()).statusCode();
        }

        @Override
        public void close() {
            // Java 17's HttpClient has no close(); its threads are daemons and end with the JVM.
        }
    }

    /** Apache HttpClient 5 classic, pooled, through a response handler as most code calls it. */
    final class Apache5 implements LoopbackClient {
        private final CloseableHttpClient client;
        private final URI url;

        Apache5(URI url, int connections) {
            this.url = url;
            client = org.apache.hc.client5.http.impl.classic.HttpClients.custom()
                    .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                            .setMaxConnTotal(connections).setMaxConnPerRoute(connections).build())
                    .build();
        }

        @Override
        public int get() throws IOException {
            return client.execute(new HttpGet(url), response -> {
                EntityUtils.toByteArray(response.getEntity());
                return response.getCode();
            });
        }

        @Override
        public void close() throws IOException {
            client.close();
        }
    }

    /** Apache HttpClient 4 classic, pooled, through a response handler. */
    final class Apache4 implements LoopbackClient {
        private final org.apache.http.impl.client.CloseableHttpClient client;
        private final URI url;

        Apache4(URI url, int connections) {
            this.url = url;
            client = org.apache.http.impl.client.HttpClients.custom()
                    .setMaxConnTotal(connections).setMaxConnPerRoute(connections).build();
        }

        @Override
        public int get() throws IOException {
            return client.execute(new org.apache.http.client.methods.HttpGet(url), response -> {
                org.apache.http.util.EntityUtils.toByteArray(response.getEntity());
                return response.getStatusLine().getStatusCode();
            });
        }

        @Override
        public void close() throws IOException {
            client.close();
        }
    }
}
