package dev.retryafter.it.apps.java8;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;

/**
 * The commanded fetcher on {@code HttpURLConnection}, in Java 8 bytecode so it runs on every JDK: says
 * READY, then {@code fetch N} fetches N records one after another and prints
 * {@code FETCHED batch ok=.. refused=..}; {@code exit} ends it. A test looks at the JVM between batches.
 */
public final class CommandedUrlConnectionApp {

    private CommandedUrlConnectionApp() {
    }

    public static void main(String[] args) throws IOException {
        String url = args[0];
        System.out.println("READY");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        int batch = 0;
        for (String line = in.readLine(); line != null && !line.equals("exit"); line = in.readLine()) {
            if (!line.startsWith("fetch ")) {
                continue;
            }
            int records = Integer.parseInt(line.substring("fetch ".length()).trim());
            int ok = 0;
            int refused = 0;
            batch++;
            for (int i = 0; i < records; i++) {
                HttpURLConnection connection = (HttpURLConnection) new URL(url + "/records/" + batch + "-" + i).openConnection();
                connection.setConnectTimeout(30_000);
                connection.setReadTimeout(60_000);
                int status = connection.getResponseCode();
                drain(status < 400 ? connection.getInputStream() : connection.getErrorStream());
                if (status == 200) {
                    ok++;
                } else if (status == 429 || status == 503) {
                    refused++;
                }
            }
            System.out.println("FETCHED " + batch + " ok=" + ok + " refused=" + refused);
        }
        System.out.println("EXIT");
    }

    private static void drain(InputStream body) throws IOException {
        if (body == null) {
            return;
        }
        try (InputStream in = body) {
            byte[] buffer = new byte[4_096];
            while (in.read(buffer) >= 0) {
                // read to the end, so the connection is kept for the next record
            }
        }
    }
}
