package dev.retryafter.it.cost;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** {@code HttpClient.send}; HTTP/1.1, since the loopback server speaks nothing else and an h2c upgrade offer per request would be noise. */
final class JdkLoopbackClient implements LoopbackClient {
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final HttpRequest request;

    JdkLoopbackClient(URI url) {
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
