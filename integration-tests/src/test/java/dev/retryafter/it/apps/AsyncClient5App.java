package dev.retryafter.it.apps;

import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;

import java.net.URI;
import java.util.concurrent.TimeUnit;

/** GETs each URL once with Apache's async client (governed since 5.x async joined the agent), and prints each status. */
public final class AsyncClient5App {

    private AsyncClient5App() {
    }

    public static void main(String[] args) throws Exception {
        try (CloseableHttpAsyncClient client = HttpAsyncClients.createDefault()) {
            client.start();
            for (String url : args) {
                SimpleHttpRequest get = SimpleRequestBuilder.get(URI.create(url)).build();
                SimpleHttpResponse response = client.execute(get, null).get(10, TimeUnit.SECONDS);
                System.out.println("STATUS " + response.getCode());
            }
        }
    }
}
