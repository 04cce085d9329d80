package dev.retryafter.it.apps;

import org.asynchttpclient.AsyncHttpClient;
import org.asynchttpclient.Dsl;
import org.asynchttpclient.Response;

import java.util.concurrent.TimeUnit;

/** GETs each URL once with AsyncHttpClient 3 (on Netty), and prints each status. */
public final class AhcGetApp {

    private AhcGetApp() {
    }

    public static void main(String[] args) throws Exception {
        try (AsyncHttpClient client = Dsl.asyncHttpClient()) {
            for (String url : args) {
                Response response = client.prepareGet(url).execute().get(10, TimeUnit.SECONDS);
                System.out.println("STATUS " + response.getStatusCode());
            }
        }
    }
}
