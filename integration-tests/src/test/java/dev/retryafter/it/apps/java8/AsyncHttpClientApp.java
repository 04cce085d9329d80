package dev.retryafter.it.apps.java8;

import org.asynchttpclient.AsyncHttpClient;
import org.asynchttpclient.Dsl;
import org.asynchttpclient.Response;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * One AsyncHttpClient request, printing {@code STATUS <status> <body length>}: {@code get URL}, {@code post-once URL} (a
 * stream, which the client sends once) or {@code post-replayable URL} (a string).
 */
public final class AsyncHttpClientApp {

    private AsyncHttpClientApp() {
    }

    public static void main(String[] args) throws Exception {
        try (AsyncHttpClient client = Dsl.asyncHttpClient()) {
            Response response;
            switch (args[0]) {
                case "get":
                    response = client.prepareGet(args[1]).execute().get(2, TimeUnit.MINUTES);
                    break;
                case "post-once":
                    response = client.preparePost(args[1]).setBody(new ByteArrayInputStream("once".getBytes(StandardCharsets.UTF_8)))
                            .execute().get(2, TimeUnit.MINUTES);
                    break;
                case "post-replayable":
                    response = client.preparePost(args[1]).setBody("every time").execute().get(2, TimeUnit.MINUTES);
                    break;
                default:
                    throw new IllegalArgumentException(args[0]);
            }
            System.out.println("STATUS " + response.getStatusCode() + " " + response.getResponseBodyAsBytes().length);
        }
    }
}
