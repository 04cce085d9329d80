package dev.retryafter.it.apps;

import org.apache.http.HttpResponse;
import org.apache.http.client.methods.HttpGet;
import org.apache.http.impl.nio.client.CloseableHttpAsyncClient;
import org.apache.http.impl.nio.client.HttpAsyncClients;

import java.util.concurrent.TimeUnit;

/** GETs each URL once with Apache HttpAsyncClient 4.1 (governed since 4.1 async joined the agent), and prints each status. */
public final class Async4App {

    private Async4App() {
    }

    public static void main(String[] args) throws Exception {
        try (CloseableHttpAsyncClient client = HttpAsyncClients.createDefault()) {
            client.start();
            for (String url : args) {
                HttpResponse response = client.execute(new HttpGet(url), null).get(10, TimeUnit.SECONDS);
                System.out.println("STATUS " + response.getStatusLine().getStatusCode());
            }
        }
    }
}
