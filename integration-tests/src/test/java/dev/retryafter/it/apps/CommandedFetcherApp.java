package dev.retryafter.it.apps;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Says READY with its pid, then takes commands on standard input, so a test can look at it between
 * batches: {@code fetch N} fetches N records one after another and prints what came back
 * ({@code FETCHED ok=.. refused=..}, then {@code failed=..} when a request failed, as a held host's
 * do, with {@code FAILED message} for the first); {@code exit} ends it.
 */
public final class CommandedFetcherApp {

    private CommandedFetcherApp() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        System.out.println("READY " + ProcessHandle.current().pid());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        int batch = 0;
        for (String line = in.readLine(); line != null && !line.equals("exit"); line = in.readLine()) {
            if (!line.startsWith("fetch ")) {
                continue;
            }
            int records = Integer.parseInt(line.substring("fetch ".length()).trim());
            int ok = 0;
            int refused = 0;
            int failed = 0;
            batch++;
            for (int i = 0; i < records; i++) {
                HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/records/" + batch + "-" + i))
                        .timeout(Duration.ofSeconds(30)).build();
                int status;
                try {
                    status = client.send(request, HttpResponse.BodyHandlers.ofString()).statusCode();
                } catch (IOException e) {
                    if (failed++ == 0) {
                        System.out.println("FAILED " + e.getMessage());
                    }
                    continue;
                }
                if (status == 200) {
                    ok++;
                } else if (status == 429 || status == 503) {
                    refused++;
                }
            }
            System.out.println("FETCHED " + batch + " ok=" + ok + " refused=" + refused + (failed > 0 ? " failed=" + failed : ""));
        }
        System.out.println("EXIT");
    }
}
