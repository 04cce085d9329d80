package dev.retryafter.it.apps;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * Threads that each GET and read a slowly streamed body to its end, then close it: Apache 5 or 4, or
 * {@code HttpURLConnection}. With {@code leak}, one response is first dropped unread and never
 * closed, as careless code does.
 * Prints {@code OK <n>} per thread, or {@code ERROR <throwable>}. Args: client, URL, threads, requests each, [leak].
 */
public final class StreamingBodiesApp {

    private StreamingBodiesApp() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[1];
        int threads = Integer.parseInt(args[2]);
        int each = Integer.parseInt(args[3]);
        boolean leak = args.length > 4 && args[4].equals("leak");
        try (ApacheGet client = args[0].equals("urlconnection") ? new UrlConnectionGet() : ApacheGet.of(args[0])) {
            if (leak) {
                leakOne(client, url);
                System.out.println("LEAKED");
            }
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    int fetched = 0;
                    for (int i = 0; i < each; i++) {
                        try (ApacheGet.Response response = client.get(url, false)) {
                            response.body().readAllBytes();
                            fetched += response.status() == 200 ? 1 : 0;
                        }
                    }
                    return fetched;
                }));
            }
            if (leak) {
                // The dropped response's permit comes back when the collector finds it unreachable.
                while (!done.get(0).isDone()) {
                    System.gc();
                    Thread.sleep(50);
                }
            }
            for (Future<Integer> future : done) {
                try {
                    System.out.println("OK " + future.get());
                } catch (Exception e) {
                    System.out.println("ERROR " + e.getCause());
                }
            }
            pool.shutdown();
        }
    }

    /** {@code HttpURLConnection} in the same shape: the status, then the body read to its end and closed. */
    private static final class UrlConnectionGet extends ApacheGet {
        @Override
        Response get(String url, boolean fail) throws IOException {
            HttpURLConnection connection = (HttpURLConnection) new URL(url).openConnection();
            int status = connection.getResponseCode();
            InputStream body = connection.getInputStream();
            return new Response() {
                @Override
                public int status() {
                    return status;
                }

                @Override
                public InputStream body() {
                    return body;
                }

                @Override
                public void close() throws IOException {
                    body.close();
                }
            };
        }

        @Override
        public void close() {
        }
    }

    /** Not closed, not read, not kept: only the garbage collector will ever see it again. */
    private static void leakOne(ApacheGet client, String url) throws Exception {
        ApacheGet.Response response = client.get(url, false);
        System.out.println("LEAKING " + response.status());
    }
}
