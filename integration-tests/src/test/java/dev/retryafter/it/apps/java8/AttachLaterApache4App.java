package dev.retryafter.it.apps.java8;

import org.apache.http.client.config.RequestConfig;
import org.apache.http.client.methods.CloseableHttpResponse;
import org.apache.http.client.methods.HttpGet;
import org.apache.http.impl.client.CloseableHttpClient;
import org.apache.http.impl.client.HttpClients;
import org.apache.http.util.EntityUtils;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;

/**
 * As {@link dev.retryafter.it.apps.AttachLaterApp}, with Apache HttpClient 4 and in Java 8 bytecode
 * (see the pom), for the JVMs without java.net.http: builds its client and sends one request before
 * any agent is there, says READY with its pid, waits for a line on standard input (the agent is
 * attached meanwhile), then fetches its records.
 */
public final class AttachLaterApache4App {

    private AttachLaterApache4App() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        int records = Integer.parseInt(args[1]);
        RequestConfig timeouts = RequestConfig.custom().setConnectTimeout(10_000).setSocketTimeout(10_000).build();
        try (CloseableHttpClient client = HttpClients.custom().setDefaultRequestConfig(timeouts).build()) {
            int before = get(client, url, "warm-up");
            // "pid@host": Java 8 has no ProcessHandle.
            String pid = ManagementFactory.getRuntimeMXBean().getName().split("@")[0];
            System.out.println("READY " + pid + " before=" + before);
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            int fetched = 0;
            for (int i = 0; i < records; i++) {
                if (get(client, url, Integer.toString(i)) == 200) {
                    fetched++;
                }
            }
            System.out.println("DONE fetched=" + fetched);
        }
    }

    private static int get(CloseableHttpClient client, String url, String record) throws IOException {
        try (CloseableHttpResponse response = client.execute(new HttpGet(url + "/records/" + record))) {
            EntityUtils.consume(response.getEntity());
            return response.getStatusLine().getStatusCode();
        }
    }
}
