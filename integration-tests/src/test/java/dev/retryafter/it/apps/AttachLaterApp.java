package dev.retryafter.it.apps;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Builds its client and sends one request before any agent is there, says READY with its pid, waits
 * for a line on standard input (the agent is attached meanwhile), then fetches its records.
 */
public final class AttachLaterApp {

    private AttachLaterApp() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        int records = Integer.parseInt(args[1]);
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        int before = client.send(request(url, "warm-up"), HttpResponse.BodyHandlers.ofString()).statusCode();
        System.out.println("READY " + ProcessHandle.current().pid() + " before=" + before);
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        int fetched = 0;
        for (int i = 0; i < records; i++) {
            if (client.send(request(url, Integer.toString(i)), HttpResponse.BodyHandlers.ofString()).statusCode() == 200) {
                fetched++;
            }
        }
        System.out.println("DONE fetched=" + fetched);
    }

    private static HttpRequest request(String url, String record) {
        return HttpRequest.newBuilder(URI.create(url + "/records/" + record)).timeout(Duration.ofSeconds(10)).build();
    }
}
