package dev.retryafter.it.cost;

import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.io.entity.EntityUtils;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.net.URI;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The clients whose cost is measured, as a child JVM uses them: one GET, the body read in full, the
 * status returned. Threadsafe. Each client is a class of its own, so a child JVM loads (and its class
 * path needs) only the one it runs. Java 8 bytecode, for start-up runs on Java 8 (see the pom), but
 * for the {@link JdkLoopbackClient}, which Java 8 has no {@code java.net.http} for.
 */
interface LoopbackClient extends AutoCloseable {

    String JDK = "jdk";
    String APACHE5 = "apache5";
    String APACHE4 = "apache4";
    List<String> ALL = Collections.unmodifiableList(Arrays.asList(JDK, APACHE5, APACHE4));

    int get() throws IOException, InterruptedException;

    @Override
    void close() throws IOException;

    /** {@code connections}: the pool size, one per thread, so no thread queues for a connection. */
    static LoopbackClient open(String name, URI url, int connections) {
        switch (name) {
            case JDK:
                return jdk(url);
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
                return Collections.emptyList();
            case APACHE5:
                return Arrays.asList("httpclient5", "httpcore5", "slf4j-api");
            case APACHE4:
                return Arrays.asList("httpclient-4", "httpcore-4", "commons-logging", "commons-codec");
            default:
                throw new IllegalArgumentException("unknown client " + name + "; expected one of " + ALL);
        }
    }

    /** The JVMs that can run {@code name}: java.net.http needs Java 11. */
    static boolean runsOn(String name, int javaFeature) {
        return !name.equals(JDK) || javaFeature >= 11;
    }

    /** Built for Java 11, the rest of these for 8: loaded only when chosen. */
    static LoopbackClient jdk(URI url) {
        try {
            return (LoopbackClient) Class.forName("dev.retryafter.it.cost.JdkLoopbackClient")
                    .getDeclaredConstructor(URI.class).newInstance(url);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
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
