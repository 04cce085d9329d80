package dev.retryafter.it.apps.java8;

import org.jsoup.Jsoup;

import java.net.HttpURLConnection;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Code that asks for a status and never touches the body: jsoup's {@code execute().statusCode()}
 * on its {@code HttpURLConnection} transport, or a bare {@code getResponseCode()}. Nothing is read,
 * closed or disconnected. Prints {@code STATUS <code>} per request and {@code DONE <n>}.
 * Args: jsoup|urlconnection, URL, threads, requests in all.
 */
public final class UnreadBodiesApp {

    private UnreadBodiesApp() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("jsoup.useHttpClient", "false");
        boolean jsoup = args[0].equals("jsoup");
        String url = args[1];
        int threads = Integer.parseInt(args[2]);
        int requests = Integer.parseInt(args[3]);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<Integer>> statuses = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            String target = url + "?n=" + i;
            statuses.add(pool.submit(() -> jsoup
                    ? Jsoup.connect(target).ignoreHttpErrors(true).ignoreContentType(true).execute().statusCode()
                    : ((HttpURLConnection) new URL(target).openConnection()).getResponseCode()));
        }
        int done = 0;
        for (Future<Integer> status : statuses) {
            System.out.println("STATUS " + status.get());
            done++;
        }
        System.out.println("DONE " + done);
        pool.shutdown();
    }
}
